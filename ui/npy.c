/*
 * npy.c — reading and writing NumPy .npy files (format versions 1.0 and 2.0).
 *
 * The header is a Python dict literal; only the three keys NumPy writes are accepted, with a
 * tiny parser for exactly the literals they take (a string, True/False, a tuple of integers).
 * Files are untrusted input: the shape is checked for overflow and against a size cap before
 * anything is allocated, and the data length must match the shape exactly.
 */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6
#define MAX_HEADER_BYTES (1u << 20)

static const struct {
    const char *descr;
    uint32_t size;
} dtypes[UI_NPY_DTYPE_COUNT] = {
    [UI_NPY_F2] = {"<f2", 2}, [UI_NPY_F4] = {"<f4", 4}, [UI_NPY_F8] = {"<f8", 8},
    [UI_NPY_I1] = {"|i1", 1}, [UI_NPY_U1] = {"|u1", 1}, [UI_NPY_I2] = {"<i2", 2},
    [UI_NPY_U2] = {"<u2", 2}, [UI_NPY_I4] = {"<i4", 4}, [UI_NPY_U4] = {"<u4", 4},
    [UI_NPY_I8] = {"<i8", 8}, [UI_NPY_U8] = {"<u8", 8}, [UI_NPY_B1] = {"|b1", 1},
};

const char *ui_npy_descr(UiNpyDtype d) { return dtypes[d].descr; }
uint32_t ui_npy_itemsize(UiNpyDtype d) { return dtypes[d].size; }

static void shape_text(const uint64_t *shape, uint32_t ndim, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "(");
    for (uint32_t i = 0; i < ndim && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%llu", i ? ", " : "",
                                (unsigned long long)shape[i]);
    if (len < size)
        snprintf(buf + len, size - len, ndim == 1 ? ",)" : ")");
}

/* ---- header dict -------------------------------------------------------------------------- */

typedef struct Cursor {
    const char *p, *end;
} Cursor;

static void skip_space(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(Cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A '...' or "..." literal without escapes (NumPy never writes any). */
static bool parse_string(Cursor *c, char *out, size_t size)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return false;
    char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || n + 1 >= size)
            return false;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return false;
    c->p++;
    out[n] = '\0';
    return true;
}

static bool parse_word(Cursor *c, const char *word)
{
    skip_space(c);
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
        c->p += n;
        return true;
    }
    return false;
}

static bool parse_shape(Cursor *c, UiNpyArray *a, const char *name, UtilError *err)
{
    if (!eat(c, '('))
        return util_fail(err, "%s: error: bad .npy header: expected the shape as a tuple of "
                              "integers, e.g. (1000,)", name);
    a->ndim = 0;
    for (;;) {
        if (eat(c, ')'))
            return true;
        skip_space(c);
        if (c->p >= c->end || *c->p < '0' || *c->p > '9')
            return util_fail(err, "%s: error: bad .npy header: expected a non-negative integer "
                                  "in the shape", name);
        uint64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (v > (UINT64_MAX - 9) / 10)
                return util_fail(err, "%s: error: bad .npy header: a shape dimension is "
                                      "absurdly large", name);
            v = v * 10 + (uint64_t)(*c->p++ - '0');
        }
        if (c->p < c->end && *c->p == 'L')
            c->p++; /* Python 2 longs */
        if (a->ndim >= UI_NPY_MAX_DIMS)
            return util_fail(err, "%s: error: more than %d dimensions; expected at most %d",
                             name, UI_NPY_MAX_DIMS, UI_NPY_MAX_DIMS);
        a->shape[a->ndim++] = v;
        if (!eat(c, ',')) {
            if (eat(c, ')'))
                return true;
            return util_fail(err, "%s: error: bad .npy header: expected ',' or ')' in the "
                                  "shape", name);
        }
    }
}

static bool parse_descr(const char *descr, const char *name, UiNpyDtype *out, UtilError *err)
{
    for (int d = 0; d < UI_NPY_DTYPE_COUNT; d++) {
        if (strcmp(descr, dtypes[d].descr) == 0) {
            *out = (UiNpyDtype)d;
            return true;
        }
        /* One-byte types carry no byte order, so NumPy may spell them with '<' too. */
        if (dtypes[d].size == 1 && descr[0] == '<' && strcmp(descr + 1, dtypes[d].descr + 1) == 0) {
            *out = (UiNpyDtype)d;
            return true;
        }
    }
    if (descr[0] == '>' && descr[1] && descr[2] != '1')
        return util_fail(err, "%s: error: big-endian data ('%s') is not supported; expected "
                              "little-endian, e.g. '<%s' (numpy: a.astype(a.dtype.newbyteorder('<')))",
                         name, descr, descr + 1);
    return util_fail(err, "%s: error: unsupported dtype '%s'; expected one of <f4 <f2 <f8 <i4 "
                          "<u4 <i2 <u2 |i1 |u1 <i8 <u8 |b1", name, descr);
}

static bool parse_dict(const char *text, size_t len, const char *name, UiNpyArray *a,
                       UtilError *err)
{
    Cursor c = {text, text + len};
    bool have_descr = false, have_order = false, have_shape = false;
    if (!eat(&c, '{'))
        return util_fail(err, "%s: error: bad .npy header: expected a dict starting with '{'",
                         name);
    for (;;) {
        if (eat(&c, '}'))
            break;
        char key[32], descr[32];
        if (!parse_string(&c, key, sizeof key) || !eat(&c, ':'))
            return util_fail(err, "%s: error: bad .npy header: expected 'key': value", name);
        bool *have = strcmp(key, "descr") == 0           ? &have_descr
                     : strcmp(key, "fortran_order") == 0 ? &have_order
                     : strcmp(key, "shape") == 0         ? &have_shape
                                                         : NULL;
        /* Python keeps the last of a repeated key; a file saying two things is refused. */
        if (have && *have)
            return util_fail(err, "%s: error: bad .npy header: the key '%s' is given twice; "
                                  "expected each of descr, fortran_order and shape once", name,
                             key);
        if (strcmp(key, "descr") == 0) {
            if (!parse_string(&c, descr, sizeof descr))
                return util_fail(err, "%s: error: bad .npy header: expected 'descr' to be a "
                                      "simple dtype string like '<f4' (structured dtypes are "
                                      "not supported)", name);
            if (!parse_descr(descr, name, &a->dtype, err))
                return false;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (parse_word(&c, "True"))
                return util_fail(err, "%s: error: Fortran-order arrays are not supported; "
                                      "expected fortran_order False (save a C-order array)",
                                 name);
            if (!parse_word(&c, "False"))
                return util_fail(err, "%s: error: bad .npy header: expected fortran_order to "
                                      "be True or False", name);
            have_order = true;
        } else if (strcmp(key, "shape") == 0) {
            if (!parse_shape(&c, a, name, err))
                return false;
            have_shape = true;
        } else {
            return util_fail(err, "%s: error: bad .npy header: unexpected key '%s'; expected "
                                  "descr, fortran_order and shape", name, key);
        }
        if (!eat(&c, ',')) {
            if (eat(&c, '}'))
                break;
            return util_fail(err, "%s: error: bad .npy header: expected ',' or '}'", name);
        }
    }
    if (!have_descr || !have_order || !have_shape)
        return util_fail(err, "%s: error: bad .npy header: expected the keys descr, "
                              "fortran_order and shape; '%s' is missing", name,
                         !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return true;
}

/* Checks the fixed prefix; sets the header length and where it starts. */
static bool parse_prefix(const uint8_t *b, size_t avail, const char *name, uint32_t *header_len,
                         size_t *header_off, UtilError *err)
{
    if (avail < MAGIC_LEN || memcmp(b, MAGIC, MAGIC_LEN) != 0)
        return util_fail(err, "%s: error: not a .npy file (expected it to start with the bytes "
                              "\\x93NUMPY)", name);
    if (avail < 10)
        return util_fail(err, "%s: error: truncated .npy file (expected at least 10 bytes of "
                              "header prefix, found %zu)", name, avail);
    if (!((b[6] == 1 || b[6] == 2) && b[7] == 0))
        return util_fail(err, "%s: error: unsupported .npy format version %u.%u; expected 1.0 "
                              "or 2.0", name, b[6], b[7]);
    if (b[6] == 1) {
        *header_len = (uint32_t)b[8] | (uint32_t)b[9] << 8;
        *header_off = 10;
    } else {
        if (avail < 12)
            return util_fail(err, "%s: error: truncated .npy file (expected 12 bytes of header "
                                  "prefix for version 2.0, found %zu)", name, avail);
        *header_len = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
                      (uint32_t)b[11] << 24;
        *header_off = 12;
    }
    if (*header_len > MAX_HEADER_BYTES)
        return util_fail(err, "%s: error: .npy header of %u bytes is absurdly long; expected a "
                              "few hundred bytes", name, *header_len);
    return true;
}

/* Parses the header dict and computes the data size, checking the cap. */
static bool parse_header(const uint8_t *header, uint32_t len, const char *name,
                         uint64_t max_bytes, UiNpyArray *a, UtilError *err)
{
    memset(a, 0, sizeof *a);
    if (!parse_dict((const char *)header, len, name, a, err))
        return false;
    uint64_t count = 1;
    bool overflow = false;
    for (uint32_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] && count > UINT64_MAX / a->shape[i])
            overflow = true;
        else
            count *= a->shape[i];
    }
    uint32_t size = dtypes[a->dtype].size;
    char shape[200];
    shape_text(a->shape, a->ndim, shape, sizeof shape);
    if (overflow || count > max_bytes / size)
        return util_fail(err, "%s: error: array of shape %s of %s is larger than the %llu MiB "
                              "a buffer may hold", name, shape, dtypes[a->dtype].descr,
                         (unsigned long long)(max_bytes >> 20));
    a->count = count;
    a->bytes = count * size;
    return true;
}

static bool check_data_len(const UiNpyArray *a, uint64_t have, const char *name, UtilError *err)
{
    if (have == a->bytes)
        return true;
    char shape[200];
    shape_text(a->shape, a->ndim, shape, sizeof shape);
    if (have < a->bytes)
        return util_fail(err, "%s: error: truncated .npy data: shape %s of %s needs %llu bytes, "
                              "found %llu", name, shape, dtypes[a->dtype].descr,
                         (unsigned long long)a->bytes, (unsigned long long)have);
    return util_fail(err, "%s: error: .npy data is %llu bytes but the header's shape %s of %s "
                          "needs %llu (the header does not match the data)", name,
                     (unsigned long long)have, shape, dtypes[a->dtype].descr,
                     (unsigned long long)a->bytes);
}

/* |b1 data holds bytes 0 (False) and 1 (True) only: another byte is not a bool. */
static bool check_values(const UiNpyArray *a, const char *name, UtilError *err)
{
    if (a->dtype != UI_NPY_B1)
        return true;
    for (uint64_t i = 0; i < a->count; i++)
        if (a->data[i] > 1)
            return util_fail(err, "%s: error: element %llu of the |b1 data is the byte %u; "
                                  "expected 0 (False) or 1 (True)", name, (unsigned long long)i,
                             a->data[i]);
    return true;
}

bool ui_npy_parse(const uint8_t *bytes, size_t size, const char *name, uint64_t max_bytes,
                  UiNpyArray *out, UtilError *err)
{
    uint32_t hlen;
    size_t hoff;
    memset(out, 0, sizeof *out);
    if (!parse_prefix(bytes, size, name, &hlen, &hoff, err))
        return false;
    if (size - hoff < hlen)
        return util_fail(err, "%s: error: truncated .npy header: expected %u bytes, found %zu",
                         name, hlen, size - hoff);
    UiNpyArray a;
    if (!parse_header(bytes + hoff, hlen, name, max_bytes, &a, err) ||
        !check_data_len(&a, size - hoff - hlen, name, err))
        return false;
    a.data = util_malloc((size_t)a.bytes);
    memcpy(a.data, bytes + hoff + hlen, (size_t)a.bytes);
    if (!check_values(&a, name, err)) {
        free(a.data);
        return false;
    }
    *out = a;
    return true;
}

bool ui_npy_read(const char *path, uint64_t max_bytes, UiNpyArray *out, UtilError *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return util_fail(err, "%s: error: cannot open: %s", path, strerror(errno));
    bool ok = false;
    uint8_t prefix[12];
    uint8_t *header = NULL;
    size_t got = fread(prefix, 1, sizeof prefix, f);
    uint32_t hlen;
    size_t hoff;
    long file_size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        file_size = ftell(f);
    if (file_size < 0) {
        util_fail(err, "%s: error: cannot read (expected a regular .npy file)", path);
        goto done;
    }
    if (!parse_prefix(prefix, got, path, &hlen, &hoff, err))
        goto done;
    if ((uint64_t)file_size - hoff < hlen) {
        util_fail(err, "%s: error: truncated .npy header: expected %u bytes, found %llu", path,
                  hlen, (unsigned long long)((uint64_t)file_size - hoff));
        goto done;
    }
    header = util_malloc(hlen);
    UiNpyArray a;
    if (fseek(f, (long)hoff, SEEK_SET) != 0 || fread(header, 1, hlen, f) != hlen) {
        util_fail(err, "%s: error: cannot read the .npy header", path);
        goto done;
    }
    if (!parse_header(header, hlen, path, max_bytes, &a, err) ||
        !check_data_len(&a, (uint64_t)file_size - hoff - hlen, path, err))
        goto done;
    a.data = util_malloc((size_t)a.bytes);
    if (fread(a.data, 1, (size_t)a.bytes, f) != a.bytes) {
        free(a.data);
        util_fail(err, "%s: error: cannot read the .npy data", path);
        goto done;
    }
    if (!check_values(&a, path, err)) {
        free(a.data);
        goto done;
    }
    *out = a;
    ok = true;
done:
    free(header);
    fclose(f);
    return ok;
}

void ui_npy_free(UiNpyArray *a)
{
    if (!a)
        return;
    free(a->data);
    a->data = NULL;
}

uint8_t *ui_npy_encode(UiNpyDtype dtype, const uint64_t *shape, uint32_t ndim, const void *data,
                       size_t *size)
{
    char shape_buf[400], dict[512];
    shape_text(shape, ndim, shape_buf, sizeof shape_buf);
    int dict_len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
                            "'shape': %s, }", dtypes[dtype].descr, shape_buf);
    uint64_t count = 1;
    for (uint32_t i = 0; i < ndim; i++)
        count *= shape[i];
    uint64_t data_bytes = count * dtypes[dtype].size;
    /* NumPy pads the header with spaces and a newline so the data starts 64-byte aligned. */
    size_t prefix = 10;
    size_t total = (prefix + (size_t)dict_len + 1 + 63) / 64 * 64;
    if (total - prefix > 0xffff) {
        prefix = 12;
        total = (prefix + (size_t)dict_len + 1 + 63) / 64 * 64;
    }
    size_t hlen = total - prefix;
    uint8_t *out = util_malloc(total + (size_t)data_bytes);
    memcpy(out, MAGIC, MAGIC_LEN);
    out[6] = prefix == 10 ? 1 : 2;
    out[7] = 0;
    out[8] = (uint8_t)hlen;
    out[9] = (uint8_t)(hlen >> 8);
    if (prefix == 12) {
        out[10] = (uint8_t)(hlen >> 16);
        out[11] = (uint8_t)(hlen >> 24);
    }
    memcpy(out + prefix, dict, (size_t)dict_len);
    memset(out + prefix + dict_len, ' ', hlen - (size_t)dict_len - 1);
    out[total - 1] = '\n';
    if (data_bytes)
        memcpy(out + total, data, (size_t)data_bytes);
    *size = total + (size_t)data_bytes;
    return out;
}

bool ui_npy_write(const char *path, UiNpyDtype dtype, const uint64_t *shape, uint32_t ndim,
                  const void *data, UtilError *err)
{
    size_t size;
    uint8_t *image = ui_npy_encode(dtype, shape, ndim, data, &size);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(image);
        return util_fail(err, "%s: error: cannot create: %s", path, strerror(errno));
    }
    bool ok = fwrite(image, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    free(image);
    if (!ok)
        return util_fail(err, "%s: error: cannot write the whole file", path);
    return true;
}
