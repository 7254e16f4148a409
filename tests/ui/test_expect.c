/*
 * test_expect.c — the expectation rule (|got - want| <= atol + rtol * |want|, NaN matches
 * NaN, integers exact unless a tolerance is given), mismatch reporting, number conversion
 * and printing.
 */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

#include "../../ui/data.h"

static const UiElemType FLOAT1 = {UI_FLOAT, 1};
static const UiElemType INT1 = {UI_INT, 1};

static UiCompareResult compare_floats(const float *got, const float *want, uint64_t n,
                                      double rtol, double atol, bool tol)
{
    UiCompareResult r;
    ui_compare(FLOAT1, (const uint8_t *)got, (const uint8_t *)want, n, rtol, atol, tol, &r);
    return r;
}

static void test_float_exact_by_default(void **state)
{
    (void)state;
    float want[4] = {1.0f, -0.0f, INFINITY, NAN};
    float same[4] = {1.0f, 0.0f, INFINITY, NAN};
    assert_int_equal(compare_floats(same, want, 4, 0, 0, false).mismatched_elements, 0);
    float off[4] = {nextafterf(1.0f, 2.0f), 0.0f, -INFINITY, 1.0f};
    UiCompareResult r = compare_floats(off, want, 4, 0, 0, false);
    assert_int_equal(r.mismatched_elements, 3); /* one ulp, -inf vs inf, 1 vs NaN */
    assert_int_equal(r.num_first, 3);
    assert_int_equal(r.first[0].element, 0);
    assert_int_equal(r.first[1].element, 2);
    assert_int_equal(r.first[2].element, 3);
}

static void test_tolerance_boundaries(void **state)
{
    (void)state;
    /* want 100, rtol 0.01, atol 0.5: allowed |diff| <= 1.5 */
    float want[3] = {100, 100, 100};
    float got[3] = {101.5f, 98.5f, 101.75f};
    UiCompareResult r = compare_floats(got, want, 3, 0.01, 0.5, true);
    assert_int_equal(r.mismatched_elements, 1);
    assert_int_equal(r.first[0].element, 2);
    assert_true(fabs(r.first[0].diff - 1.75) < 1e-12);
    /* rtol scales with |want|, not |got| */
    float want2[1] = {-10}, got2[1] = {-11};
    assert_int_equal(compare_floats(got2, want2, 1, 0.1, 0, true).mismatched_elements, 0);
    float want3[1] = {-11}, got3[1] = {-10};
    assert_int_equal(compare_floats(got3, want3, 1, 0.0910, 0, true).mismatched_elements, 0);
    assert_int_equal(compare_floats(got3, want3, 1, 0.0908, 0, true).mismatched_elements, 1);
    /* an infinity matches only itself, whatever the tolerance: rtol * |inf| is inf, which
     * let -inf, 5 and NaN match +inf */
    float want4[4] = {INFINITY, INFINITY, INFINITY, -INFINITY};
    float got4[4] = {-INFINITY, 5.0f, NAN, -INFINITY};
    r = compare_floats(got4, want4, 4, 0.1, 1.0, true);
    assert_int_equal(r.mismatched_elements, 3);
    assert_int_equal(r.first[2].element, 2);
    float want5[1] = {5.0f}, got5[1] = {INFINITY};
    assert_int_equal(compare_floats(got5, want5, 1, 0.1, 1.0, true).mismatched_elements, 1);
}

static void test_integers(void **state)
{
    (void)state;
    int32_t want[3] = {5, -7, 2147483647};
    int32_t got[3] = {5, -6, 2147483646};
    UiCompareResult r;
    ui_compare(INT1, (const uint8_t *)got, (const uint8_t *)want, 3, 0, 0, false, &r);
    assert_int_equal(r.mismatched_elements, 2);
    assert_int_equal(r.first[0].got.negative, true);
    assert_int_equal(r.first[0].got.magnitude, 6);
    assert_int_equal(r.first[1].want.magnitude, 2147483647);
    ui_compare(INT1, (const uint8_t *)got, (const uint8_t *)want, 3, 0, 1, true, &r);
    assert_int_equal(r.mismatched_elements, 0);
    /* ulong values beyond 2^53 still compare exactly */
    uint64_t w = UINT64_MAX, g = UINT64_MAX - 1;
    ui_compare((UiElemType){UI_ULONG, 1}, (const uint8_t *)&g, (const uint8_t *)&w, 1, 0, 0, false,
               &r);
    assert_int_equal(r.mismatched_elements, 1);
}

static void test_first_eight_and_vectors(void **state)
{
    (void)state;
    float want[40], got[40];
    for (int i = 0; i < 40; i++)
        want[i] = got[i] = (float)i;
    for (int i = 3; i < 40; i += 3)
        got[i] += 1;
    UiCompareResult r = compare_floats(got, want, 40, 0, 0, false);
    assert_int_equal(r.mismatched_elements, 13);
    assert_int_equal(r.num_first, UI_MAX_REPORTED_MISMATCHES);
    for (int k = 0; k < 8; k++)
        assert_int_equal(r.first[k].element, 3 + 3 * k);
    /* float3: 16 bytes per element, padding ignored; two bad components of one element count
     * as one element. */
    float v_want[8] = {1, 2, 3, 99, 4, 5, 6, -99};
    float v_got[8] = {1, 2, 3, 0, 4, 7, 8, 0};
    ui_compare((UiElemType){UI_FLOAT, 3}, (const uint8_t *)v_got, (const uint8_t *)v_want, 2, 0,
               0, false, &r);
    assert_int_equal(r.mismatched_elements, 1);
    assert_int_equal(r.num_first, 2);
    assert_int_equal(r.first[0].element, 1);
    assert_int_equal(r.first[0].component, 1);
    assert_int_equal(r.first[1].component, 2);
}

static void test_half_compare(void **state)
{
    (void)state;
    uint16_t want[2] = {0x3c00, 0x7e00}; /* 1.0, NaN */
    uint16_t got[2] = {0x3c01, 0x7e01};  /* 1 + 2^-10, another NaN */
    UiCompareResult r;
    ui_compare((UiElemType){UI_HALF, 1}, (const uint8_t *)got, (const uint8_t *)want, 2, 0, 0,
               false, &r);
    assert_int_equal(r.mismatched_elements, 1);
    ui_compare((UiElemType){UI_HALF, 1}, (const uint8_t *)got, (const uint8_t *)want, 2, 0.001, 0,
               true, &r);
    assert_int_equal(r.mismatched_elements, 0);
}

static void test_store_number(void **state)
{
    (void)state;
    uint8_t buf[8];
    UtilError err;
    UiNumber n;
    assert_true(ui_yaml_parse_number("255", &n));
    assert_true(ui_store_number(UI_UCHAR, &n, buf, &err));
    assert_int_equal(buf[0], 255);
    assert_true(ui_yaml_parse_number("256", &n));
    assert_false(ui_store_number(UI_UCHAR, &n, buf, &err));
    assert_non_null(strstr(err.message, "out of range for uchar (0 to 255)"));
    /* finite numbers that round to infinity are out of range; infinities themselves are not
     * (FLT_MAX is 3.4028234664e38, and 3.4028235678e38 the midpoint to 2^128; half's largest
     * is 65504, and 65520 the midpoint to 2^16) */
    static const struct {
        UiScalarType type;
        const char *text;
        bool ok;
    } wide[] = {
        {UI_FLOAT, "3.4028234e38", true}, {UI_FLOAT, "3.4028236e38", false},
        {UI_FLOAT, "-1e39", false},       {UI_FLOAT, ".inf", true},
        {UI_FLOAT, "1e-50", true},        {UI_HALF, "65519", true},
        {UI_HALF, "65520", false},        {UI_HALF, "-70000", false},
        {UI_HALF, "-.inf", true},
    };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        assert_true(ui_yaml_parse_number(wide[i].text, &n));
        memset(&err, 0, sizeof err);
        bool ok = ui_store_number(wide[i].type, &n, buf, &err);
        if (ok != wide[i].ok)
            fail_msg("%s: stored %s, expected %s", wide[i].text, ok ? "ok" : err.message,
                     wide[i].ok ? "ok" : "an error");
        if (!ok)
            assert_non_null(strstr(err.message, "write .inf for infinity"));
    }
    assert_true(ui_yaml_parse_number("-129", &n));
    assert_false(ui_store_number(UI_CHAR, &n, buf, &err));
    assert_true(ui_yaml_parse_number("-128", &n));
    assert_true(ui_store_number(UI_CHAR, &n, buf, &err));
    assert_int_equal((int8_t)buf[0], -128);
    assert_true(ui_yaml_parse_number("1.5", &n));
    assert_false(ui_store_number(UI_INT, &n, buf, &err));
    assert_non_null(strstr(err.message, "not an integer"));
    assert_true(ui_yaml_parse_number("3.0", &n));
    assert_true(ui_store_number(UI_INT, &n, buf, &err));
    assert_true(ui_yaml_parse_number("-1", &n));
    assert_false(ui_store_number(UI_UINT, &n, buf, &err));
    assert_true(ui_yaml_parse_number("0xffffffffffffffff", &n));
    assert_true(ui_store_number(UI_ULONG, &n, buf, &err));
    uint64_t u;
    memcpy(&u, buf, 8);
    assert_true(u == UINT64_MAX);
    assert_true(ui_yaml_parse_number("-9223372036854775808", &n));
    assert_true(ui_store_number(UI_LONG, &n, buf, &err));
    int64_t s;
    memcpy(&s, buf, 8);
    assert_true(s == INT64_MIN);
    assert_true(ui_yaml_parse_number("2", &n));
    assert_false(ui_store_number(UI_BOOL, &n, buf, &err));
    assert_true(ui_yaml_parse_number("true", &n));
    assert_true(ui_store_number(UI_BOOL, &n, buf, &err));
    assert_int_equal(buf[0], 1);
    /* half: 0.1 rounds to nearest even 0x2e66; 65520 rounds to inf, which is stored (for
     * the callers that generate values) and reported */
    assert_true(ui_yaml_parse_number("0.1", &n));
    assert_true(ui_store_number(UI_HALF, &n, buf, &err));
    uint16_t h;
    memcpy(&h, buf, 2);
    assert_int_equal(h, 0x2e66);
    assert_true(ui_yaml_parse_number("65520", &n));
    assert_false(ui_store_number(UI_HALF, &n, buf, &err));
    memcpy(&h, buf, 2);
    assert_int_equal(h, 0x7c00);
    assert_true(ui_yaml_parse_number("-.inf", &n));
    assert_true(n.is_float && isinf(n.f) && n.f < 0);
    assert_false(ui_yaml_parse_number("1.2.3", &n));
    assert_false(ui_yaml_parse_number("abc", &n));
    assert_false(ui_yaml_parse_number("", &n));
    assert_false(ui_yaml_parse_number("e5", &n));
    assert_false(ui_yaml_parse_number("0x", &n));
    /* too big for 64 bits: a float, which no integer type will take */
    assert_true(ui_yaml_parse_number("99999999999999999999", &n));
    assert_true(n.is_float);
    assert_false(ui_store_number(UI_ULONG, &n, buf, &err));
}

static void test_format_number(void **state)
{
    (void)state;
    char buf[64];
    UiNumber n = ui_number_from_double((double)0.1f);
    assert_string_equal(ui_format_number(UI_FLOAT, &n, buf, sizeof buf), "0.1");
    n = ui_number_from_double((double)(1.0f / 3.0f));
    assert_string_equal(ui_format_number(UI_FLOAT, &n, buf, sizeof buf), "0.33333334");
    n = ui_number_from_double(0.0999755859375); /* the half nearest 0.1 */
    assert_string_equal(ui_format_number(UI_HALF, &n, buf, sizeof buf), "0.1");
    n = ui_number_from_double(NAN);
    assert_string_equal(ui_format_number(UI_FLOAT, &n, buf, sizeof buf), "nan");
    n = ui_number_from_double(-INFINITY);
    assert_string_equal(ui_format_number(UI_FLOAT, &n, buf, sizeof buf), "-inf");
    /* whole numbers as digits, not %g's shortest exponent form ("1e+01"), up to 2^53 */
    static const struct { double v; const char *text; } whole[] = {
        {10.0, "10"}, {-20.0, "-20"}, {3e8, "300000000"}, {65504.0, "65504"}, {1e20, "1e+20"},
        {12.5, "12.5"}, {1e-5, "1e-05"},
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        n = ui_number_from_double(whole[i].v);
        assert_string_equal(ui_format_number(UI_FLOAT, &n, buf, sizeof buf), whole[i].text);
    }
    n = ui_number_from_i64(-42);
    assert_string_equal(ui_format_number(UI_INT, &n, buf, sizeof buf), "-42");
    n = ui_number_from_u64(UINT64_MAX);
    assert_string_equal(ui_format_number(UI_ULONG, &n, buf, sizeof buf), "18446744073709551615");
}

static void test_elem_types(void **state)
{
    (void)state;
    UiElemType t;
    assert_true(ui_elem_type_parse("float3", &t));
    assert_int_equal(t.scalar, UI_FLOAT);
    assert_int_equal(t.lanes, 3);
    assert_int_equal(ui_elem_size(t), 16);
    assert_int_equal(ui_scalar_offset(t, 4), 20); /* element 1, component 1 */
    assert_true(ui_elem_type_parse("uchar2", &t));
    assert_int_equal(ui_elem_size(t), 2);
    assert_true(ui_elem_type_parse("half3", &t));
    assert_int_equal(ui_elem_size(t), 8);
    assert_true(ui_elem_type_parse("ulong", &t));
    assert_int_equal(t.scalar, UI_ULONG);
    assert_true(ui_elem_type_parse("bool4", &t));
    assert_false(ui_elem_type_parse("float5", &t));
    assert_false(ui_elem_type_parse("float1", &t));
    assert_false(ui_elem_type_parse("double", &t));
    assert_false(ui_elem_type_parse("", &t));
    assert_false(ui_elem_type_parse("int4x", &t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_exact_by_default),
        cmocka_unit_test(test_tolerance_boundaries),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_first_eight_and_vectors),
        cmocka_unit_test(test_half_compare),
        cmocka_unit_test(test_store_number),
        cmocka_unit_test(test_format_number),
        cmocka_unit_test(test_elem_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
