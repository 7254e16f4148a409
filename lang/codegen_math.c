/*
 * codegen_math.c — lowers the float math builtins of builtins.h (abs .. signbit) to
 * straight-line ISA code on virtual registers, within the ULP limits of MSL spec chapter 7
 * (Tables 28-30). The SFU gives exp2, log2, sin, cos, rcp, rsqrt and a correctly rounded
 * sqrt and divide; everything else is built here: exp/exp10/pow carry the exponent as a
 * float-float pair (hi + lo via ffma) because rounding x*log2(e) to one float costs up to
 * ~44 ulp at x = 88; pow needs log2 to ~30 bits, so it has its own float-float log.
 * Special cases (NaN, infinities, signed zeros, huge arguments) are merged in with selects,
 * never branches, since the code may run under any exec mask. Half operands are computed
 * in f32 and rounded once to f16, except where an f16 instruction is exact already (and
 * nextafter, which steps the f16 bits). The exponent functions (frexp, ilogb, logb, ldexp)
 * and modf work on the bit fields; the inverse hyperbolics are log1p of a cancellation-free
 * argument with pow's float-float log. docs/numerics.md lists each sequence with its
 * measured error.
 */
#include <math.h>

#include "codegen.h"

typedef IsaOperand Opd;

typedef struct Mth {
    LangCg *cg;
    bool fast;   /* fast-math limits suffice */
    bool half;   /* operands were halves: the result is rounded to f16 afterwards */
    IsaInst *last;
} Mth;

/* ---- emission helpers ------------------------------------------------------------------ */

#define SIGN32 0x80000000u

static Opd K(float f) { return lang_cg_imm_f32(f); }
static Opd KU(uint32_t u) { return lang_cg_imm(u); }

/* -a; immediates get their sign bit flipped instead of a modifier. */
static Opd N(Opd a)
{
    if (a.kind == ISA_OPD_IMM)
        a.imm ^= SIGN32;
    else
        a.flags ^= ISA_OPD_NEG;
    return a;
}

/* |a| */
static Opd A(Opd a)
{
    if (a.kind == ISA_OPD_IMM)
        a.imm &= ~(uint64_t)SIGN32;
    else
        a.flags = ISA_OPD_ABS;
    return a;
}

static Opd emit(Mth *m, IsaOpcode op, int width, int n, const Opd *src)
{
    Opd d = lang_cg_new_vreg(m->cg, width);
    IsaInst *in = lang_cg_emit(m->cg, op);
    in->opd[0] = d;
    for (int i = 0; i < n; i++)
        in->opd[i + 1] = src[i];
    m->last = in;
    return d;
}

static Opd e1(Mth *m, IsaOpcode op, Opd a) { return emit(m, op, 32, 1, &a); }
static Opd e2(Mth *m, IsaOpcode op, Opd a, Opd b) { return emit(m, op, 32, 2, (Opd[]){a, b}); }
static Opd e3(Mth *m, IsaOpcode op, Opd a, Opd b, Opd c)
{
    return emit(m, op, 32, 3, (Opd[]){a, b, c});
}
static Opd xadd(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_FADD32, a, b); }
static Opd xsub(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_FADD32, a, N(b)); }
static Opd xmul(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_FMUL32, a, b); }
static Opd xfma(Mth *m, Opd a, Opd b, Opd c) { return e3(m, ISA_OP_FFMA32, a, b, c); }
static Opd xdiv(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_FDIV32, a, b); }
static Opd iand(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_AND, a, b); }
static Opd ior(Mth *m, Opd a, Opd b) { return e2(m, ISA_OP_OR, a, b); }

/* A modifier-free operand (fcmpsel, icmpsel and cvt take no source modifiers). */
static Opd plain(Mth *m, Opd a)
{
    return a.kind != ISA_OPD_IMM && a.flags ? e1(m, ISA_OP_FMOV32, a) : a;
}

/* (a cond b) ? x : y, float compare (ordered, except .ne) */
static Opd sel(Mth *m, IsaCond c, Opd a, Opd b, Opd x, Opd y)
{
    a = plain(m, a), b = plain(m, b), x = plain(m, x), y = plain(m, y);
    Opd d = emit(m, ISA_OP_FCMPSEL32, 32, 4, (Opd[]){a, b, x, y});
    m->last->cond = (uint8_t)c;
    return d;
}

static Opd isel(Mth *m, IsaCond c, Opd a, Opd b, Opd x, Opd y)
{
    a = plain(m, a), b = plain(m, b), x = plain(m, x), y = plain(m, y);
    Opd d = emit(m, ISA_OP_ICMPSEL, 32, 4, (Opd[]){a, b, x, y});
    m->last->cond = (uint8_t)c;
    return d;
}

static Opd cvt(Mth *m, int width, IsaType dst, IsaType src, Opd a)
{
    Opd d = emit(m, ISA_OP_CVT, width, 1, &a);
    m->last->type = (uint8_t)dst;
    m->last->src_type = (uint8_t)src;
    return d;
}

/* r with the sign bit of s (r's own sign bit must be clear). */
static Opd or_sign(Mth *m, Opd r, Opd s) { return ior(m, r, iand(m, s, KU(SIGN32))); }

static Opd copysign_(Mth *m, Opd r, Opd s)
{
    return ior(m, iand(m, r, KU(0x7fffffffu)), iand(m, s, KU(SIGN32)));
}

/* Horner: c[0] * z^(n-1) + ... + c[n-1] */
static Opd horner(Mth *m, Opd z, const float *c, int n)
{
    Opd p = xfma(m, z, K(c[0]), K(c[1]));
    for (int i = 2; i < n; i++)
        p = xfma(m, z, p, K(c[i]));
    return p;
}

/* ---- constants ------------------------------------------------------------------------- */

#define L2E_D 1.44269504088896340736
#define L2T_D 3.32192809488736234787 /* log2(10) */
#define PI_D 3.14159265358979323846
static const float L2E_HI = (float)L2E_D, L2E_LO = (float)(L2E_D - (double)(float)L2E_D);
static const float L2T_HI = (float)L2T_D, L2T_LO = (float)(L2T_D - (double)(float)L2T_D);
static const float PI_HI = (float)PI_D, PI_LO = (float)(PI_D - (double)(float)PI_D);
static const float PIO2_HI = (float)(PI_D / 2), PIO2_LO = (float)(PI_D / 2 - (double)(float)(PI_D / 2));

/* ---- exponentials ---------------------------------------------------------------------- */

/* 2^(hi + lo + shift) for |hi| <= ~200 (lo tiny next to hi). The integer part is applied as
 * two exact power-of-two factors so neither overflows early and a subnormal result is
 * rounded once, by the last multiply. */
static Opd exp2_split(Mth *m, Opd hi, Opd lo, int shift)
{
    Opd n = e1(m, ISA_OP_RINT32, hi);
    Opd f = xadd(m, xsub(m, hi, n), lo);
    Opd p = e1(m, ISA_OP_EXP232, f);
    if (shift)
        n = xadd(m, n, K((float)shift));
    Opd n1 = e1(m, ISA_OP_TRUNC32, xmul(m, n, K(0.5f)));
    Opd n2 = xsub(m, n, n1);
    Opd r = xmul(m, p, e1(m, ISA_OP_EXP232, n1));
    return xmul(m, r, e1(m, ISA_OP_EXP232, n2));
}

/* 2^(x * (chi + clo) + shift), x clamped (NaN kept) to [lo, hi] where the result is 0 / inf. */
static Opd exp_scaled(Mth *m, Opd x, float chi, float clo, float lo, float hi, int shift)
{
    Opd xc = sel(m, ISA_COND_GT, x, K(hi), K(hi), x);
    xc = sel(m, ISA_COND_LT, xc, K(lo), K(lo), xc);
    Opd th = xmul(m, xc, K(chi));
    Opd tl = xfma(m, xc, K(chi), N(th)); /* the product's rounding error, exactly */
    tl = xfma(m, xc, K(clo), tl);
    return exp2_split(m, th, tl, shift);
}

/* e^x * 2^shift; fast math: one rounded product (error ~ 2|x| ulp, within 3 + 2|x|). */
static Opd m_exp(Mth *m, Opd x, int shift)
{
    if (m->fast)
        return e1(m, ISA_OP_EXP232, xfma(m, x, K((float)L2E_D), K((float)shift)));
    return exp_scaled(m, x, L2E_HI, L2E_LO, -104.0f, 90.0f, shift);
}

static Opd m_exp10(Mth *m, Opd x)
{
    if (m->fast)
        return e1(m, ISA_OP_EXP232, xmul(m, x, K((float)L2T_D)));
    return exp_scaled(m, x, L2T_HI, L2T_LO, -46.0f, 40.0f, 0);
}

/* ---- pow ------------------------------------------------------------------------------- */

/* log2(a) as hi + lo to ~2^-30 relative, for finite a > 0 (other lanes: garbage, replaced
 * by the caller). a = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln(m) = 2 atanh(u),
 * u = (m-1)/(m+1) in float-float; the series tail needs only float precision. */
static void log2_ext(Mth *m, Opd a, Opd *hi, Opd *lo)
{
    Opd tiny = K(0x1p-126f);
    Opd as = sel(m, ISA_COND_LT, a, tiny, xmul(m, a, K(0x1p24f)), a);
    Opd ebias = sel(m, ISA_COND_LT, a, tiny, K(-151.0f), K(-127.0f));
    Opd mant = ior(m, iand(m, as, KU(0x007fffffu)), KU(0x3f800000u));
    Opd big = sel(m, ISA_COND_GT, mant, K(1.41421356f), K(1.0f), K(0.0f));
    Opd mr = sel(m, ISA_COND_GT, mant, K(1.41421356f), xmul(m, mant, K(0.5f)), mant);
    Opd ef = cvt(m, 32, ISA_TYPE_F32, ISA_TYPE_U32, e2(m, ISA_OP_LSR, as, KU(23)));
    ef = xadd(m, xadd(m, ef, ebias), big);
    Opd f = xsub(m, mr, K(1.0f));                 /* exact */
    Opd dh = xadd(m, f, K(2.0f));
    Opd dl = xsub(m, f, xsub(m, dh, K(2.0f)));    /* 2 + f = dh + dl exactly */
    Opd inv = e1(m, ISA_OP_RCP32, dh);
    Opd uh = xmul(m, f, inv);
    Opd res = xfma(m, N(uh), dh, f);
    res = xfma(m, N(uh), dl, res);
    Opd ul = xmul(m, res, inv);                   /* u = uh + ul */
    Opd z = xmul(m, uh, uh);
    static const float c[] = {2.0f / 11, 2.0f / 9, 2.0f / 7, 2.0f / 5, 2.0f / 3};
    Opd tail = xmul(m, xmul(m, uh, z), horner(m, z, c, 5));
    Opd ah = xadd(m, uh, uh);
    Opd al = xfma(m, K(2.0f), ul, tail);          /* ln(m) = ah + al */
    Opd lh = xmul(m, ah, K(L2E_HI));
    Opd ll = xfma(m, ah, K(L2E_HI), N(lh));
    ll = xfma(m, ah, K(L2E_LO), ll);
    ll = xfma(m, al, K(L2E_HI), ll);              /* log2(m) = lh + ll */
    Opd sh = xadd(m, ef, lh);                     /* |ef| >= |lh| unless ef = 0: Fast2Sum */
    Opd err = xsub(m, lh, xsub(m, sh, ef));
    *hi = sh;
    *lo = xadd(m, err, ll);
}

/* |x|^y for finite x != 0 and finite y, else what the plain formula gives (0, inf, NaN). */
static Opd pow_mag(Mth *m, Opd x, Opd y)
{
    Opd zs = xmul(m, y, e1(m, ISA_OP_LOG232, A(x)));
    Opd simple = e1(m, ISA_OP_EXP232, zs);
    if (m->half)   /* |zs| < 2^6 matters there: its 2^-24 relative error is < 2^-12 ulp */
        return simple;
    Opd lh, ll;
    log2_ext(m, A(x), &lh, &ll);
    Opd zh = xmul(m, y, lh);
    Opd zl = xfma(m, y, lh, N(zh));
    zl = xfma(m, y, ll, zl);
    zl = sel(m, ISA_COND_LT, A(zh), K(200.0f), zl, K(0.0f));
    zh = e2(m, ISA_OP_FMIN32, e2(m, ISA_OP_FMAX32, zh, K(-200.0f)), K(200.0f));
    Opd main = exp2_split(m, zh, zl, 0);
    return sel(m, ISA_COND_LT, A(zs), K(INFINITY), main, simple);
}

static Opd m_pow(Mth *m, Opd x, Opd y)
{
    if (m->fast)
        return e1(m, ISA_OP_EXP232, xmul(m, y, e1(m, ISA_OP_LOG232, x)));
    Opd mag = pow_mag(m, x, y);
    /* odd integer y: 1.0, else 0.0 */
    Opd ty = e1(m, ISA_OP_TRUNC32, y);
    Opd hy = xmul(m, y, K(0.5f));
    Opd odd = sel(m, ISA_COND_NE, e1(m, ISA_OP_TRUNC32, hy), hy, K(1.0f), K(0.0f));
    odd = sel(m, ISA_COND_EQ, ty, y, odd, K(0.0f));
    Opd r = sel(m, ISA_COND_EQ, odd, K(1.0f), N(mag), mag);
    r = isel(m, ISA_COND_SLT, x, KU(0), r, mag);              /* sign bit of x set */
    /* finite x < 0 with a non-integer y: NaN */
    Opd bad = sel(m, ISA_COND_EQ, ty, y, r, K(NAN));
    bad = sel(m, ISA_COND_GT, x, K(-INFINITY), bad, r);
    r = sel(m, ISA_COND_LT, x, K(0.0f), bad, r);
    r = sel(m, ISA_COND_EQ, y, K(0.0f), K(1.0f), r);          /* pow(x, ±0) = 1, even NaN */
    r = sel(m, ISA_COND_EQ, x, K(1.0f), K(1.0f), r);          /* pow(1, y) = 1, even NaN */
    Opd one = sel(m, ISA_COND_EQ, A(y), K(INFINITY), K(1.0f), r);
    return sel(m, ISA_COND_EQ, x, K(-1.0f), one, r);          /* pow(-1, ±inf) = 1 */
}

static Opd m_powr(Mth *m, Opd x, Opd y)
{
    if (m->fast)
        return e1(m, ISA_OP_EXP232, xmul(m, y, e1(m, ISA_OP_LOG232, x)));
    return sel(m, ISA_COND_LT, x, K(0.0f), K(NAN), pow_mag(m, x, y));
}

/* ---- hyperbolic ------------------------------------------------------------------------ */

/* sinh, cosh, tanh: the exponential form where it does not cancel, a series below; fast
 * math only swaps in the cheaper exp. */
static Opd m_sinh(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd z = xmul(m, a, a);
    static const float c[] = {1.0f / 39916800, 1.0f / 362880, 1.0f / 5040, 1.0f / 120, 1.0f / 6};
    Opd small = xfma(m, xmul(m, a, z), horner(m, z, c, 5), a);
    Opd he = m_exp(m, a, -1);                      /* e^a / 2 */
    Opd big = xsub(m, he, xdiv(m, K(0.25f), he));
    return or_sign(m, sel(m, ISA_COND_LT, a, K(1.0f), small, big), x);
}

static Opd m_cosh(Mth *m, Opd x)
{
    Opd he = m_exp(m, A(x), -1);
    return xadd(m, he, xdiv(m, K(0.25f), he));
}

static Opd m_tanh(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd e = m_exp(m, xadd(m, a, a), 0);
    Opd big = xsub(m, K(1.0f), xdiv(m, K(2.0f), xadd(m, e, K(1.0f))));
    Opd z = xmul(m, a, a);
    static const float c[] = {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f,
                              1.33314422036e-1f, -3.33332819422e-1f};
    Opd small = xfma(m, xmul(m, z, a), horner(m, z, c, 5), a);
    return or_sign(m, sel(m, ISA_COND_LT, a, K(0.625f), small, big), x);
}

/* ---- inverse hyperbolic and cbrt -------------------------------------------------------- */

#define LN2_D 0.69314718055994530942
static const float LN2_HI = (float)LN2_D, LN2_LO = (float)(LN2_D - (double)(float)LN2_D);
static const float THIRD_HI = (float)(1.0 / 3), THIRD_LO = (float)(1.0 / 3 - (double)(float)(1.0 / 3));

/* ln(a) + extra for finite a > 0 (|extra| small next to the result or exact), rounded once:
 * log2_ext's hi + lo times ln 2 as a float-float product. */
static Opd ln_plus(Mth *m, Opd a, Opd extra)
{
    Opd lh, ll;
    log2_ext(m, a, &lh, &ll);
    Opd t = xfma(m, ll, K(LN2_HI), extra);
    t = xfma(m, lh, K(LN2_LO), t);
    return xfma(m, lh, K(LN2_HI), t);
}

/* ln(1 + t) for t >= 0: 1 + t = s + c exactly (2Sum), ln(s + c) = ln(s) + c/s. */
static Opd log1p_pos(Mth *m, Opd t)
{
    Opd s = xadd(m, K(1.0f), t);
    Opd bb = xsub(m, s, K(1.0f));
    Opd c = xadd(m, xsub(m, K(1.0f), xsub(m, s, bb)), xsub(m, t, bb));
    return ln_plus(m, s, xdiv(m, c, s));
}

/* asinh, acosh, atanh as log1p of an argument formed without cancellation; above 2^12 the
 * square root is |x| to float precision and ln(2|x|) is taken directly (no overflow). Fast
 * math uses the same sequences: they are within any bound the formulas of Table 29 give. */
static Opd m_asinh(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd a2 = xmul(m, a, a);
    Opd den = xadd(m, K(1.0f), e1(m, ISA_OP_SQRT32, xadd(m, a2, K(1.0f))));
    Opd t = xadd(m, a, xdiv(m, a2, den));            /* a + a^2 / (1 + sqrt(1 + a^2)) */
    Opd r = sel(m, ISA_COND_LT, a, K(0x1p12f), log1p_pos(m, t), ln_plus(m, a, K(LN2_HI)));
    r = sel(m, ISA_COND_EQ, a, K(INFINITY), a, r);
    r = sel(m, ISA_COND_NE, a, a, a, r);
    return or_sign(m, r, x);
}

static Opd m_acosh(Mth *m, Opd x)
{
    Opd xm = xsub(m, x, K(1.0f));                    /* exact up to 2 */
    Opd t = xadd(m, xm, e1(m, ISA_OP_SQRT32, xmul(m, xm, xadd(m, x, K(1.0f)))));
    Opd r = sel(m, ISA_COND_LT, x, K(0x1p12f), log1p_pos(m, t), ln_plus(m, x, K(LN2_HI)));
    r = sel(m, ISA_COND_EQ, x, K(INFINITY), x, r);
    return sel(m, ISA_COND_GE, x, K(1.0f), r, K(NAN));
}

/* atanh = log1p(2a / (1 - a)) / 2, below 1/2 as log1p(2a + 2a^2 / (1 - a)) (glibc's split). */
static Opd m_atanh(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd om = xsub(m, K(1.0f), a);                    /* exact from 1/2 up */
    Opd a2 = xadd(m, a, a);
    Opd small = xadd(m, a2, xdiv(m, xmul(m, a2, a), om));
    Opd t = sel(m, ISA_COND_LT, a, K(0.5f), small, xdiv(m, a2, om));
    Opd r = xmul(m, log1p_pos(m, t), K(0.5f));
    r = sel(m, ISA_COND_EQ, a, K(1.0f), K(INFINITY), r);
    r = sel(m, ISA_COND_LE, a, K(1.0f), r, K(NAN));
    return or_sign(m, r, x);
}

/* cbrt = 2^(log2|x| / 3) with the exponent as a float-float pair (as pow does). */
static Opd m_cbrt(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd lh, ll;
    log2_ext(m, a, &lh, &ll);
    Opd zh = xmul(m, lh, K(THIRD_HI));
    Opd zl = xfma(m, lh, K(THIRD_HI), N(zh));
    zl = xfma(m, lh, K(THIRD_LO), zl);
    zl = xfma(m, ll, K(THIRD_HI), zl);
    Opd r = exp2_split(m, zh, zl, 0);
    r = sel(m, ISA_COND_EQ, a, K(0.0f), a, r);
    r = sel(m, ISA_COND_EQ, a, K(INFINITY), a, r);
    r = sel(m, ISA_COND_NE, a, a, a, r);
    return or_sign(m, r, x);
}

/* ---- sinpi, cospi, tanpi ---------------------------------------------------------------- */

/* sin(pi x) and cos(pi x). x - 2 rint(x/2) = y in [-1, 1] and y - q/2 = f in [-1/4, 1/4]
 * are exact; pi f is a float-float pair, and sin/cos of it get the low part's first-order
 * term. Below 2^-20, sin(pi x) is pi x (scaled up so a subnormal result rounds once). Zeros:
 * sinpi(n) has the sign of n, cospi(n + 1/2) is +0. Fast math uses the same sequences. */
static void m_sincospi(Mth *m, Opd x, Opd *sp, Opd *cp)
{
    Opd y = xfma(m, K(-2.0f), e1(m, ISA_OP_RINT32, xmul(m, x, K(0.5f))), x);
    Opd q = e1(m, ISA_OP_RINT32, xadd(m, y, y));
    Opd f = xfma(m, q, K(-0.5f), y);
    Opd ph = xmul(m, f, K(PI_HI));
    Opd pl = xfma(m, f, K(PI_HI), N(ph));
    pl = xfma(m, f, K(PI_LO), pl);
    Opd sn = e1(m, ISA_OP_SIN32, ph), cs = e1(m, ISA_OP_COS32, ph);
    Opd s = xfma(m, pl, cs, sn), c = xfma(m, N(pl), sn, cs);
    if (sp) {
        Opd r = sel(m, ISA_COND_EQ, A(q), K(2.0f), N(s), s);
        r = sel(m, ISA_COND_EQ, q, K(-1.0f), N(c), r);
        r = sel(m, ISA_COND_EQ, q, K(1.0f), c, r);
        Opd t = xmul(m, x, K(0x1p30f));
        Opd th = xmul(m, t, K(PI_HI));
        Opd tl = xfma(m, t, K(PI_LO), xfma(m, t, K(PI_HI), N(th)));
        Opd tiny = xfma(m, th, K(0x1p-30f), xmul(m, tl, K(0x1p-30f)));
        r = sel(m, ISA_COND_LT, A(x), K(0x1p-20f), tiny, r);
        *sp = sel(m, ISA_COND_EQ, r, K(0.0f), iand(m, x, KU(SIGN32)), r);
    }
    if (cp) {
        Opd r = sel(m, ISA_COND_EQ, A(q), K(2.0f), N(c), c);
        r = sel(m, ISA_COND_EQ, q, K(-1.0f), s, r);
        r = sel(m, ISA_COND_EQ, q, K(1.0f), N(s), r);
        *cp = sel(m, ISA_COND_EQ, r, K(0.0f), K(0.0f), r);
    }
}

static Opd m_sinpi(Mth *m, Opd x)
{
    Opd s;
    m_sincospi(m, x, &s, NULL);
    return s;
}

static Opd m_cospi(Mth *m, Opd x)
{
    Opd c;
    m_sincospi(m, x, NULL, &c);
    return c;
}

/* sinpi / cospi: tanpi(n) is +-0 as n/(-1)^n, tanpi(n + 1/2) +inf for even n, -inf for odd. */
static Opd m_tanpi(Mth *m, Opd x)
{
    Opd s, c;
    m_sincospi(m, x, &s, &c);
    return xdiv(m, s, c);
}

/* ---- inverse trigonometric ------------------------------------------------------------- */

/* atan(t) for t >= 0 (or +inf; NaN propagates): reduced to |t'| <= tan(pi/8) around 0,
 * pi/4 or pi/2 (Cephes atanf). */
static Opd atan_pos(Mth *m, Opd t)
{
    const float t3 = 2.414213562373095f, t1 = 0.4142135623730950f;
    Opd big = xdiv(m, K(-1.0f), t);
    Opd mid = xdiv(m, xsub(m, t, K(1.0f)), xadd(m, t, K(1.0f)));
    Opd xr = sel(m, ISA_COND_GT, t, K(t3), big, sel(m, ISA_COND_GT, t, K(t1), mid, t));
    Opd y0 = sel(m, ISA_COND_GT, t, K(t3), K(PIO2_HI),
                 sel(m, ISA_COND_GT, t, K(t1), K(PIO2_HI * 0.5f), K(0.0f)));
    Opd y0l = xmul(m, y0, K(PIO2_LO / PIO2_HI));
    Opd z = xmul(m, xr, xr);
    static const float c[] = {8.05374449538e-2f, -1.38776856032e-1f, 1.99777106478e-1f,
                              -3.33329491539e-1f};
    Opd q = xfma(m, xmul(m, horner(m, z, c, 4), z), xr, xr);
    return xadd(m, y0, xadd(m, q, y0l));
}

static Opd m_atan2(Mth *m, Opd y, Opd x)
{
    Opd mx = e2(m, ISA_OP_FMAX32, A(x), A(y));
    Opd mn = e2(m, ISA_OP_FMIN32, A(x), A(y));
    Opd t = xdiv(m, mn, mx);
    t = sel(m, ISA_COND_EQ, mx, K(0.0f), K(0.0f), t);          /* both zero */
    t = sel(m, ISA_COND_EQ, mn, K(INFINITY), K(1.0f), t);      /* both infinite */
    Opd r = atan_pos(m, t);
    Opd c = xadd(m, xsub(m, K(PIO2_HI), r), K(PIO2_LO));
    r = sel(m, ISA_COND_GT, A(y), A(x), c, r);
    c = xadd(m, xsub(m, K(PI_HI), r), K(PI_LO));
    r = isel(m, ISA_COND_SLT, x, KU(0), c, r);                 /* sign bit of x */
    r = or_sign(m, r, y);
    Opd s = xadd(m, A(x), A(y));                               /* NaN iff either is */
    return sel(m, ISA_COND_NE, s, s, s, r);
}

/* asin(|x|) (Cephes asinf), NaN outside [-1, 1]. */
static Opd asin_abs(Mth *m, Opd x)
{
    Opd a = e1(m, ISA_OP_FMOV32, A(x));
    Opd z1 = xmul(m, xsub(m, K(1.0f), a), K(0.5f));
    Opd w = sel(m, ISA_COND_GT, a, K(0.5f), e1(m, ISA_OP_SQRT32, z1), a);
    Opd z = sel(m, ISA_COND_GT, a, K(0.5f), z1, xmul(m, a, a));
    static const float c[] = {4.2163199048e-2f, 2.4181311049e-2f, 4.5470025998e-2f,
                              7.4953002686e-2f, 1.6666752422e-1f};
    return xfma(m, xmul(m, horner(m, z, c, 5), z), w, w);
}

static Opd m_asin(Mth *m, Opd x)
{
    Opd r = asin_abs(m, x);
    Opd c = xadd(m, xfma(m, K(-2.0f), r, K(PIO2_HI)), K(PIO2_LO));
    return or_sign(m, sel(m, ISA_COND_GT, A(x), K(0.5f), c, r), x);
}

static Opd m_acos(Mth *m, Opd x)
{
    Opd r = asin_abs(m, x);
    Opd small = xadd(m, xsub(m, K(PIO2_HI), or_sign(m, r, x)), K(PIO2_LO));
    Opd pos = xadd(m, r, r);
    Opd neg = xadd(m, xfma(m, K(-2.0f), r, K(PI_HI)), K(PI_LO));
    return sel(m, ISA_COND_GT, x, K(0.5f), pos, sel(m, ISA_COND_LT, x, K(-0.5f), neg, small));
}

/* ---- rounding and remainders ----------------------------------------------------------- */

/* Half away from zero: trunc, then step by ±1 when the dropped part is >= 0.5. */
static Opd m_round(Mth *m, Opd x)
{
    Opd t = e1(m, ISA_OP_TRUNC32, x);
    Opd d = xsub(m, x, t);                          /* exact */
    Opd up = sel(m, ISA_COND_GE, d, K(0.5f), K(1.0f), K(0.0f));
    Opd st = sel(m, ISA_COND_LE, d, K(-0.5f), K(-1.0f), up);
    return sel(m, ISA_COND_EQ, st, K(0.0f), t, xadd(m, t, st)); /* keeps trunc's -0 */
}

static Opd m_fract(Mth *m, Opd x)
{
    /* below 1 in the result's format: 0x1.fffffep-1 (f32) or 0x1.ffcp-1 (f16) */
    float top = m->half ? 0x1.ffcp-1f : 0x1.fffffep-1f;
    Opd r = e2(m, ISA_OP_FMIN32, xsub(m, x, e1(m, ISA_OP_FLOOR32, x)), K(top));
    r = sel(m, ISA_COND_EQ, x, K(INFINITY), K(0.0f), r);
    r = sel(m, ISA_COND_EQ, x, K(-INFINITY), K(-0.0f), r);
    return sel(m, ISA_COND_NE, x, x, x, r);
}

/* fmod, exactly. With |r| < 2^24 Y, q = trunc(r / Y) is within one of the true quotient,
 * so r - q*Y lies in (-Y, Y) and is a multiple of ulp(Y): ffma gives it exactly. Levels
 * Y = |y| * 2^(24j) take |x| / |y| < 2^288 (2^48 for halves) down to (-|y|, |y|). */
static Opd m_fmod(Mth *m, Opd x, Opd y)
{
    int levels = m->half ? 2 : 12;
    Opd ys[12];
    ys[0] = e1(m, ISA_OP_FMOV32, A(y));
    for (int j = 1; j < levels; j++)
        ys[j] = xmul(m, ys[j - 1], K(0x1p24f));
    Opd ax = e1(m, ISA_OP_FMOV32, A(x));
    Opd r = sel(m, ISA_COND_EQ, ax, K(INFINITY), K(NAN), ax);
    for (int j = levels - 1; j >= 0; j--) {
        Opd q = e1(m, ISA_OP_TRUNC32, xdiv(m, r, ys[j]));
        Opd t = xfma(m, N(q), ys[j], r);
        r = sel(m, ISA_COND_EQ, ys[j], K(INFINITY), r, t);   /* an overflowed level: skip */
    }
    r = sel(m, ISA_COND_LT, r, K(0.0f), xadd(m, r, ys[0]), r);
    return or_sign(m, r, x);
}

/* ---- exponent and bit-level functions --------------------------------------------------- */

/* The unbiased exponent of x (finite, nonzero), an int, and x scaled into the normal range
 * (subnormals times 2^24, the exponent counting it). */
static Opd exponent_of(Mth *m, Opd x, Opd *scaled)
{
    Opd ax = e1(m, ISA_OP_FMOV32, A(x));
    *scaled = sel(m, ISA_COND_LT, ax, K(0x1p-126f), xmul(m, x, K(0x1p24f)), x);
    Opd bias = sel(m, ISA_COND_LT, ax, K(0x1p-126f), KU(127 + 24), KU(127));
    Opd field = iand(m, e2(m, ISA_OP_LSR, *scaled, KU(23)), KU(0xff));
    return e2(m, ISA_OP_ISUB, field, bias);
}

/* x itself where it is ±0, ±inf or NaN, else r */
static Opd keep_special(Mth *m, Opd x, Opd r)
{
    r = sel(m, ISA_COND_EQ, x, K(0.0f), x, r);
    r = sel(m, ISA_COND_EQ, A(x), K(INFINITY), x, r);
    return sel(m, ISA_COND_NE, x, x, x, r);
}

static Opd m_frexp(Mth *m, Opd x)
{
    Opd xs;
    exponent_of(m, x, &xs);
    return keep_special(m, x, ior(m, iand(m, xs, KU(0x807fffffu)), KU(0x3f000000u)));
}

/* frexp's exponent: 0 for ±0, ±inf and NaN */
static Opd m_frexp_exp(Mth *m, Opd x)
{
    Opd xs;
    Opd e = e2(m, ISA_OP_IADD, exponent_of(m, x, &xs), KU(1));
    e = sel(m, ISA_COND_LT, A(x), K(INFINITY), e, KU(0));
    return sel(m, ISA_COND_EQ, x, K(0.0f), KU(0), e);
}

/* FP_ILOGB0 and FP_ILOGBNAN are INT_MIN (as in glibc on x86-64); ilogb(±inf) is INT_MAX. */
static Opd m_ilogb(Mth *m, Opd x)
{
    Opd xs;
    Opd e = exponent_of(m, x, &xs);
    e = sel(m, ISA_COND_EQ, A(x), K(INFINITY), KU(0x7fffffffu), e);
    e = sel(m, ISA_COND_EQ, x, K(0.0f), KU(SIGN32), e);
    return sel(m, ISA_COND_NE, x, x, KU(SIGN32), e);
}

static Opd m_logb(Mth *m, Opd x)
{
    Opd xs;
    Opd r = cvt(m, 32, ISA_TYPE_F32, ISA_TYPE_S32, exponent_of(m, x, &xs));
    r = sel(m, ISA_COND_EQ, x, K(0.0f), K(-INFINITY), r);
    r = sel(m, ISA_COND_EQ, A(x), K(INFINITY), K(INFINITY), r);
    return sel(m, ISA_COND_NE, x, x, x, r);
}

/* x * 2^k, correctly rounded: the exponent field is rewritten where the result is normal;
 * where it is subnormal, it is rewritten 100 higher and one multiply by 2^-100 rounds. */
static Opd m_ldexp(Mth *m, Opd x, Opd k)
{
    k = isel(m, ISA_COND_SLT, k, KU((uint32_t)-400), KU((uint32_t)-400), k);
    k = isel(m, ISA_COND_SGT, k, KU(400), KU(400), k);
    Opd xs;
    Opd e = e2(m, ISA_OP_IADD, exponent_of(m, x, &xs), k);       /* the result's exponent */
    Opd field = iand(m, e2(m, ISA_OP_LSR, xs, KU(23)), KU(0xff));
    Opd shift = e2(m, ISA_OP_ISUB, e2(m, ISA_OP_IADD, e, KU(127)), field);
    Opd normal = e2(m, ISA_OP_IADD, xs, e2(m, ISA_OP_SHL, shift, KU(23)));
    Opd low = e2(m, ISA_OP_IADD, xs, e2(m, ISA_OP_SHL, e2(m, ISA_OP_IADD, shift, KU(100)),
                                       KU(23)));
    Opd r = isel(m, ISA_COND_SLT, e, KU((uint32_t)-126), xmul(m, low, K(0x1p-100f)), normal);
    r = isel(m, ISA_COND_SLT, e, KU((uint32_t)-170), iand(m, x, KU(SIGN32)), r);
    r = isel(m, ISA_COND_SGT, e, KU(127), or_sign(m, K(INFINITY), x), r);
    return keep_special(m, x, r);
}

/* The fractional part with x's sign (modf's return value; the integral part is trunc). */
static Opd m_modf(Mth *m, Opd x)
{
    Opd r = copysign_(m, xsub(m, x, e1(m, ISA_OP_TRUNC32, x)), x);
    return sel(m, ISA_COND_EQ, A(x), K(INFINITY), iand(m, x, KU(SIGN32)), r);
}

/* The neighbour of x toward y, from the raw bits xb, yb of the operands' own format (sign
 * bit `sign`) and their values x, y as f32 for the compares. */
static Opd m_nextafter(Mth *m, Opd x, Opd y, Opd xb, Opd yb, uint32_t sign)
{
    Opd up = sel(m, ISA_COND_LT, x, y, KU(1), KU(0));
    Opd neg = sel(m, ISA_COND_LT, x, K(0.0f), KU(1), KU(0));
    Opd d = e2(m, ISA_OP_SHL, e2(m, ISA_OP_XOR, up, neg), KU(1));  /* 2: away from 0 */
    Opd r = e2(m, ISA_OP_ISUB, e2(m, ISA_OP_IADD, xb, d), KU(1));
    r = sel(m, ISA_COND_EQ, x, K(0.0f), ior(m, iand(m, yb, KU(sign)), KU(1)), r);
    r = sel(m, ISA_COND_EQ, x, y, yb, r);
    r = sel(m, ISA_COND_NE, y, y, yb, r);
    return sel(m, ISA_COND_NE, x, x, xb, r);
}

/* ---- the builtins ---------------------------------------------------------------------- */

/* Number of operands of math builtin b, or 0 when it is not one. */
static int math_arity(LangBuiltin b)
{
    switch (b) {
    case LANG_BI_MIN: case LANG_BI_MAX: case LANG_BI_FMIN: case LANG_BI_FMAX:
    case LANG_BI_STEP: case LANG_BI_FMOD: case LANG_BI_POW: case LANG_BI_POWR:
    case LANG_BI_ATAN2: case LANG_BI_COPYSIGN: case LANG_BI_FDIM: case LANG_BI_DIVIDE:
    case LANG_BI_LDEXP: case LANG_BI_NEXTAFTER:
        return 2;
    case LANG_BI_CLAMP: case LANG_BI_MIX: case LANG_BI_SMOOTHSTEP: case LANG_BI_FMA:
    case LANG_BI_MAD:
        return 3;
    case LANG_BI_ABS: case LANG_BI_FABS: case LANG_BI_SATURATE: case LANG_BI_SIGN:
    case LANG_BI_FLOOR: case LANG_BI_CEIL: case LANG_BI_TRUNC: case LANG_BI_ROUND:
    case LANG_BI_RINT: case LANG_BI_FRACT: case LANG_BI_SQRT: case LANG_BI_RSQRT:
    case LANG_BI_EXP: case LANG_BI_EXP2: case LANG_BI_EXP10: case LANG_BI_LOG:
    case LANG_BI_LOG2: case LANG_BI_LOG10: case LANG_BI_SIN: case LANG_BI_COS:
    case LANG_BI_TAN: case LANG_BI_ASIN: case LANG_BI_ACOS: case LANG_BI_ATAN:
    case LANG_BI_SINH: case LANG_BI_COSH: case LANG_BI_TANH: case LANG_BI_ISNAN:
    case LANG_BI_ISINF: case LANG_BI_ISFINITE: case LANG_BI_SIGNBIT: case LANG_BI_ACOSH:
    case LANG_BI_ASINH: case LANG_BI_ATANH: case LANG_BI_CBRT: case LANG_BI_SINPI:
    case LANG_BI_COSPI: case LANG_BI_TANPI: case LANG_BI_LOGB: case LANG_BI_ILOGB:
    case LANG_BI_SINCOS: case LANG_BI_FREXP: case LANG_BI_FREXP_EXP: case LANG_BI_MODF:
        return 1;
    default:
        return 0;
    }
}

static bool returns_int(LangBuiltin b)
{
    return b == LANG_BI_ISNAN || b == LANG_BI_ISINF || b == LANG_BI_ISFINITE ||
           b == LANG_BI_SIGNBIT || b == LANG_BI_ILOGB || b == LANG_BI_FREXP_EXP;
}

/* The f32 sequence of b (operands f32 values). */
static Opd math_f32(Mth *m, LangBuiltin b, const Opd *a)
{
    switch (b) {
    case LANG_BI_ABS: case LANG_BI_FABS: return e1(m, ISA_OP_FMOV32, A(a[0]));
    case LANG_BI_MIN: case LANG_BI_FMIN: return e2(m, ISA_OP_FMIN32, a[0], a[1]);
    case LANG_BI_MAX: case LANG_BI_FMAX: return e2(m, ISA_OP_FMAX32, a[0], a[1]);
    case LANG_BI_CLAMP:
        return e2(m, ISA_OP_FMIN32, e2(m, ISA_OP_FMAX32, a[0], a[1]), a[2]);
    case LANG_BI_SATURATE: {
        Opd r = e1(m, ISA_OP_FMOV32, a[0]);
        m->last->flags |= ISA_INST_SAT;
        return r;
    }
    case LANG_BI_MIX: return xfma(m, xsub(m, a[1], a[0]), a[2], a[0]);
    case LANG_BI_STEP: return sel(m, ISA_COND_LT, a[1], a[0], K(0.0f), K(1.0f));
    case LANG_BI_SMOOTHSTEP: {
        Opd num = xsub(m, a[2], a[0]), den = xsub(m, a[1], a[0]);
        Opd t = m->fast ? xmul(m, num, e1(m, ISA_OP_RCP32, den)) : xdiv(m, num, den);
        t = e1(m, ISA_OP_FMOV32, t);
        m->last->flags |= ISA_INST_SAT;
        return xmul(m, xmul(m, t, t), xfma(m, K(-2.0f), t, K(3.0f)));
    }
    case LANG_BI_SIGN: {
        Opd r = sel(m, ISA_COND_EQ, a[0], K(0.0f), a[0], K(0.0f)); /* ±0 kept, NaN -> 0 */
        r = sel(m, ISA_COND_GT, a[0], K(0.0f), K(1.0f), r);
        return sel(m, ISA_COND_LT, a[0], K(0.0f), K(-1.0f), r);
    }
    case LANG_BI_FLOOR: return e1(m, ISA_OP_FLOOR32, a[0]);
    case LANG_BI_CEIL: return e1(m, ISA_OP_CEIL32, a[0]);
    case LANG_BI_TRUNC: return e1(m, ISA_OP_TRUNC32, a[0]);
    case LANG_BI_RINT: return e1(m, ISA_OP_RINT32, a[0]);
    case LANG_BI_ROUND: return m_round(m, a[0]);
    case LANG_BI_FRACT: return m_fract(m, a[0]);
    case LANG_BI_FMOD: return m_fmod(m, a[0], a[1]);
    case LANG_BI_SQRT: return e1(m, ISA_OP_SQRT32, a[0]);
    case LANG_BI_RSQRT: return e1(m, ISA_OP_RSQRT32, a[0]);
    case LANG_BI_EXP: return m_exp(m, a[0], 0);
    case LANG_BI_EXP2: return e1(m, ISA_OP_EXP232, a[0]);
    case LANG_BI_EXP10: return m_exp10(m, a[0]);
    case LANG_BI_LOG: return xmul(m, e1(m, ISA_OP_LOG232, a[0]), K((float)(1 / L2E_D)));
    case LANG_BI_LOG2: return e1(m, ISA_OP_LOG232, a[0]);
    case LANG_BI_LOG10: return xmul(m, e1(m, ISA_OP_LOG232, a[0]), K((float)(1 / L2T_D)));
    case LANG_BI_POW: return m_pow(m, a[0], a[1]);
    case LANG_BI_POWR: return m_powr(m, a[0], a[1]);
    case LANG_BI_SIN: case LANG_BI_SINCOS: return e1(m, ISA_OP_SIN32, a[0]);
    case LANG_BI_COS: return e1(m, ISA_OP_COS32, a[0]);
    case LANG_BI_TAN: {
        Opd s = e1(m, ISA_OP_SIN32, a[0]), c = e1(m, ISA_OP_COS32, a[0]);
        return m->fast ? xmul(m, s, e1(m, ISA_OP_RCP32, c)) : xdiv(m, s, c);
    }
    case LANG_BI_ASIN: return m_asin(m, a[0]);
    case LANG_BI_ACOS: return m_acos(m, a[0]);
    case LANG_BI_ATAN: return or_sign(m, atan_pos(m, A(a[0])), a[0]);
    case LANG_BI_ATAN2: return m_atan2(m, a[0], a[1]);
    case LANG_BI_SINH: return m_sinh(m, a[0]);
    case LANG_BI_COSH: return m_cosh(m, a[0]);
    case LANG_BI_TANH: return m_tanh(m, a[0]);
    case LANG_BI_ASINH: return m_asinh(m, a[0]);
    case LANG_BI_ACOSH: return m_acosh(m, a[0]);
    case LANG_BI_ATANH: return m_atanh(m, a[0]);
    case LANG_BI_CBRT: return m_cbrt(m, a[0]);
    case LANG_BI_SINPI: return m_sinpi(m, a[0]);
    case LANG_BI_COSPI: return m_cospi(m, a[0]);
    case LANG_BI_TANPI: return m_tanpi(m, a[0]);
    case LANG_BI_LOGB: return m_logb(m, a[0]);
    case LANG_BI_ILOGB: return m_ilogb(m, a[0]);
    case LANG_BI_LDEXP: return m_ldexp(m, a[0], a[1]);
    case LANG_BI_FREXP: return m_frexp(m, a[0]);
    case LANG_BI_FREXP_EXP: return m_frexp_exp(m, a[0]);
    case LANG_BI_MODF: return m_modf(m, a[0]);
    case LANG_BI_NEXTAFTER: return m_nextafter(m, a[0], a[1], a[0], a[1], SIGN32);
    case LANG_BI_FMA: case LANG_BI_MAD: return xfma(m, a[0], a[1], a[2]);
    case LANG_BI_COPYSIGN: return copysign_(m, a[0], a[1]);
    case LANG_BI_FDIM: {
        Opd r = sel(m, ISA_COND_GT, a[0], a[1], xsub(m, a[0], a[1]), K(0.0f));
        r = sel(m, ISA_COND_NE, a[0], a[0], a[0], r);
        return sel(m, ISA_COND_NE, a[1], a[1], a[1], r);
    }
    case LANG_BI_DIVIDE:
        return m->fast ? xmul(m, a[0], e1(m, ISA_OP_RCP32, a[1])) : xdiv(m, a[0], a[1]);
    case LANG_BI_ISNAN: return sel(m, ISA_COND_NE, a[0], a[0], KU(1), KU(0));
    case LANG_BI_ISINF: return sel(m, ISA_COND_EQ, A(a[0]), K(INFINITY), KU(1), KU(0));
    case LANG_BI_ISFINITE: return sel(m, ISA_COND_LT, A(a[0]), K(INFINITY), KU(1), KU(0));
    case LANG_BI_SIGNBIT: return e2(m, ISA_OP_LSR, a[0], KU(31));
    default: return e1(m, ISA_OP_FMOV32, a[0]); /* not reached: math_arity filters */
    }
}

/* Builtins whose f16 instruction is exact already (correctly rounded or exact). */
static bool half_native(Mth *m, LangBuiltin b, Opd dst, const Opd *a)
{
    IsaOpcode op;
    int n = 1;
    switch (b) {
    case LANG_BI_ABS: case LANG_BI_FABS: op = ISA_OP_FMOV16; break;
    case LANG_BI_SATURATE: op = ISA_OP_FMOV16; break;
    case LANG_BI_MIN: case LANG_BI_FMIN: op = ISA_OP_FMIN16, n = 2; break;
    case LANG_BI_MAX: case LANG_BI_FMAX: op = ISA_OP_FMAX16, n = 2; break;
    case LANG_BI_FLOOR: op = ISA_OP_FLOOR16; break;
    case LANG_BI_CEIL: op = ISA_OP_CEIL16; break;
    case LANG_BI_TRUNC: op = ISA_OP_TRUNC16; break;
    case LANG_BI_RINT: op = ISA_OP_RINT16; break;
    case LANG_BI_FMA: case LANG_BI_MAD: op = ISA_OP_FFMA16, n = 3; break;
    case LANG_BI_DIVIDE: op = ISA_OP_FDIV16, n = 2; break;
    case LANG_BI_CLAMP: {
        Opd t = emit(m, ISA_OP_FMAX16, 16, 2, a);
        IsaInst *in = lang_cg_emit(m->cg, ISA_OP_FMIN16);
        in->opd[0] = dst, in->opd[1] = t, in->opd[2] = a[2];
        return true;
    }
    default:
        return false;
    }
    IsaInst *in = lang_cg_emit(m->cg, op);
    in->opd[0] = dst;
    for (int i = 0; i < n; i++)
        in->opd[i + 1] = a[i];
    if ((b == LANG_BI_ABS || b == LANG_BI_FABS) && a[0].kind == ISA_OPD_IMM)
        in->opd[1].imm &= ~(uint64_t)0x8000u; /* a half's sign is bit 15 */
    else if (b == LANG_BI_ABS || b == LANG_BI_FABS)
        in->opd[1] = A(a[0]);
    if (b == LANG_BI_SATURATE)
        in->flags |= ISA_INST_SAT;
    return true;
}

static bool same_reg(Opd a, Opd b)
{
    return a.kind == b.kind && a.index == b.index && a.flags == b.flags && a.kind != ISA_OPD_IMM;
}

bool lang_cg_math(LangCg *cg, LangBuiltin b, IsaOperand dst, const IsaOperand *args, int nargs,
                  bool is_half, bool fast)
{
    int arity = math_arity(b);
    if (!arity || nargs != arity || !args)
        return false;
    Mth m = {cg, fast, is_half, NULL};
    Opd a[3];
    if (is_half) {
        if (half_native(&m, b, dst, args))
            return true;
        for (int i = 0; i < arity; i++)   /* ldexp's exponent is an int already */
            a[i] = b == LANG_BI_LDEXP && i == 1 ? args[i]
                                                : cvt(&m, 32, ISA_TYPE_F32, ISA_TYPE_F16, args[i]);
        if (b == LANG_BI_NEXTAFTER) {     /* steps in f16's own bits */
            Opd hb[2];
            for (int i = 0; i < 2; i++)
                hb[i] = args[i].kind == ISA_OPD_IMM ? KU((uint32_t)args[i].imm & 0xffffu)
                                                    : cvt(&m, 32, ISA_TYPE_U32, ISA_TYPE_U16, args[i]);
            Opd r = m_nextafter(&m, a[0], a[1], hb[0], hb[1], 0x8000u);
            IsaInst *in = lang_cg_emit(cg, ISA_OP_CVT);
            in->type = ISA_TYPE_U16, in->src_type = ISA_TYPE_U32;
            in->opd[0] = dst, in->opd[1] = r;
            return true;
        }
    } else {
        for (int i = 0; i < arity; i++)
            a[i] = args[i];
    }
    Opd r = math_f32(&m, b, a);
    if (is_half && !returns_int(b)) {
        IsaInst *in = lang_cg_emit(cg, ISA_OP_CVT); /* the one rounding to f16 */
        in->type = ISA_TYPE_F16, in->src_type = ISA_TYPE_F32;
        in->opd[0] = dst, in->opd[1] = r;
    } else if (m.last && same_reg(m.last->opd[0], r)) {
        m.last->opd[0] = dst; /* the last instruction defines the result: retarget it */
    } else {
        IsaInst *in = lang_cg_emit(cg, ISA_OP_MOV);
        in->opd[0] = dst, in->opd[1] = r;
    }
    return true;
}
