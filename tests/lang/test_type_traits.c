/*
 * test_type_traits.c — <metal_type_traits>' value traits through the whole compiler: every
 * trait against a table of types (scalars, vectors, void, pointers, const types, a struct),
 * in both spellings (trait_v<T> and trait<T>::value, with and without metal::), inside a
 * template on its own parameter and as a constant (an array size); is_same against pairs;
 * a kernel's own trait-named template kept; and the messages for an unknown trait and a
 * missing ::value. Expected values are C++'s, written out per type in the test.
 */
#include "construct_harness.h"

/* One row a type (its name a string: <stdbool.h> makes bool a macro here): bit k for trait
 * k, in this order. */
enum { FP = 1, INTEG = 2, SIGNED = 4, UNSIGNED = 8, ARITH = 16, SCALAR = 32, VEC = 64,
       VOID = 128, PTR = 256, CONST = 512 };

#define TYPES(X)                                                                      \
    X("bool", INTEG | UNSIGNED | ARITH | SCALAR)                                        \
    X("char", INTEG | SIGNED | ARITH | SCALAR)                                          \
    X("uchar", INTEG | UNSIGNED | ARITH | SCALAR)                                       \
    X("short", INTEG | SIGNED | ARITH | SCALAR)                                         \
    X("ushort", INTEG | UNSIGNED | ARITH | SCALAR)                                      \
    X("int", INTEG | SIGNED | ARITH | SCALAR)                                           \
    X("uint", INTEG | UNSIGNED | ARITH | SCALAR)                                        \
    X("long", INTEG | SIGNED | ARITH | SCALAR)                                          \
    X("ulong", INTEG | UNSIGNED | ARITH | SCALAR)                                       \
    X("half", FP | SIGNED | ARITH | SCALAR)                                             \
    X("float", FP | SIGNED | ARITH | SCALAR)                                            \
    X("bfloat", FP | SIGNED | ARITH | SCALAR)                                           \
    X("float4", VEC)                                                                    \
    X("uint2", VEC)                                                                     \
    X("half3", VEC)                                                                     \
    X("void", VOID)                                                                     \
    X("device float*", PTR | SCALAR)                                                    \
    X("const int", INTEG | SIGNED | ARITH | SCALAR | CONST)                             \
    X("const device int*", PTR | SCALAR)                                                \
    X("Pair", 0)

#define COUNT_ONE(T, bits) +1
enum { NUM_TYPES = 0 TYPES(COUNT_ONE) };

/* Even rows in the _v spelling, odd rows as trait<T>::value with metal:: */
#define ROW_V(T)                                                                              \
    "is_floating_point_v<" T "> * 1 + is_integral_v<" T "> * 2 + is_signed_v<"   \
    T "> * 4 + is_unsigned_v<" T "> * 8 + is_arithmetic_v<" T "> * 16 + "   \
    "is_scalar_v<" T "> * 32 + is_vector_v<" T "> * 64 + is_void_v<" T     \
    "> * 128 + is_pointer_v<" T "> * 256 + is_const_v<" T "> * 512"
#define ROW_VALUE(T)                                                                          \
    "metal::is_floating_point<" T ">::value * 1 + metal::is_integral<" T          \
    ">::value * 2 + metal::is_signed<" T ">::value * 4 + metal::is_unsigned<" T   \
    ">::value * 8 + metal::is_arithmetic<" T ">::value * 16 + metal::is_scalar<"        \
    T ">::value * 32 + metal::is_vector<" T ">::value * 64 + metal::is_void<"     \
    T ">::value * 128 + metal::is_pointer<" T ">::value * 256 + "                 \
    "metal::is_const<" T ">::value * 512"
#define EMIT(T, bits) "  o[n] = " ROW_V(T) ";\n  o[n + 1] = " ROW_VALUE(T) ";\n  n += 2;\n"
#define WANT(T, bits) bits,

static void test_trait_table(void **state)
{
    (void)state;
    static const char *src = "#include <metal_stdlib>\n"
                             "#include <metal_type_traits>\n"
                             "struct Pair { int a; float b; };\n"
                             "kernel void k(device int* o [[buffer(0)]]) {\n"
                             "  int n = 0;\n" TYPES(EMIT) "}\n";
    static const int want[] = {TYPES(WANT)};
    Harness h;
    ch_init(&h, src, NULL);
    int32_t *o = ch_buf(&h, 0, 2 * NUM_TYPES * 4);
    ch_run(&h, 1, 1);
    for (int i = 0; i < NUM_TYPES; i++) {
        CH_IEQ(o[2 * i], want[i], i);
        CH_IEQ(o[2 * i + 1], want[i], i);
    }
    h_free(&h);
}

/* is_same: exact, const and address space and all; through template parameters and
 * typedefs; and a trait as a constant (array size, static_assert, template argument). */
static void test_is_same_and_templates(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "typedef float real;\n"
            "template <typename T, typename U> int same() { return is_same_v<T, U> ? 1 : 0; }\n"
            "template <typename T> int kind(T x) {\n"
            "  return metal::is_integral_v<T> * 10 + is_signed<T>::value;\n"
            "}\n"
            "template <int N> int getn() { return N; }\n"
            "static_assert(is_same_v<real, float>, \"typedef\");\n"
            "kernel void k(device int* o [[buffer(0)]]) {\n"
            "  o[0] = is_same_v<float, real>;\n"
            "  o[1] = is_same<int, uint>::value;\n"
            "  o[2] = is_same_v<const float, float>;\n"
            "  o[3] = is_same_v<device float*, device float*>;\n"
            "  o[4] = is_same_v<device float*, constant float*>;\n"
            "  o[5] = is_same_v<const device float*, device float*>;\n"
            "  o[6] = is_same_v<float4, vec<float, 4> >;\n"
            "  o[7] = same<int, int>() + same<int, short>() * 2 + same<half, half>() * 4;\n"
            "  o[8] = kind(1u) * 100 + kind(2.0h);\n"
            "  int a[is_integral_v<long> + 2];\n"
            "  a[2] = 5;\n"
            "  o[9] = a[2] + getn<is_floating_point_v<bfloat>>() * 10;\n"
            "}\n",
            NULL);
    int32_t *o = ch_buf(&h, 0, 10 * 4);
    ch_run(&h, 1, 1);
    const int want[] = {1, 0, 0, 1, 0, 0, 1, 1 + 4, 10 * 100 + 1, 15};
    for (int i = 0; i < 10; i++)
        CH_IEQ(o[i], want[i], i);
    h_free(&h);
}

/* A kernel's own template named like a trait keeps its meaning. */
static void test_own_trait_name(void **state)
{
    (void)state;
    Harness h;
    ch_init(&h,
            "template <typename T> struct is_integral { static constexpr int value = 7; };\n"
            "kernel void k(device int* o [[buffer(0)]]) { o[0] = is_integral<float>::value; }\n",
            NULL);
    int32_t *o = ch_buf(&h, 0, 4);
    ch_run(&h, 1, 1);
    CH_IEQ(o[0], 7, 0);
    h_free(&h);
}

static void test_trait_errors(void **state)
{
    (void)state;
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = metal::is_fundamental_v<int>;\n"
                    "}\n",
                    NULL, "k.metal:2:17: error: unknown type trait 'is_fundamental_v'");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = is_same<int, int>::val;\n"
                    "}\n",
                    NULL, "k.metal:2:29: error: expected 'value' after 'is_same<...>::'");
    ch_expect_error("kernel void k(device int* o [[buffer(0)]]) {\n"
                    "  o[0] = is_integral_v<3>;\n"
                    "}\n",
                    NULL, "k.metal:2:24: error: expected a type as argument of 'is_integral_v'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trait_table),
        cmocka_unit_test(test_is_same_and_templates),
        cmocka_unit_test(test_own_trait_name),
        cmocka_unit_test(test_trait_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
