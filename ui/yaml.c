/*
 * yaml.c — libyaml's event stream turned into a UiYamlNode tree with positions.
 *
 * The event API (rather than libyaml's document loader) is used so that aliases can be
 * refused before they expand, duplicate keys can be caught where they are written, and the
 * nesting depth can be capped: a manifest is a few levels deep, so a deep document is a
 * mistake or an attack, never a launch.
 */
#include "yaml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64

static UiYamlNode *new_node(UiYamlDoc *doc, UiYamlKind kind, yaml_mark_t mark)
{
    UiYamlNode *n = util_calloc(1, sizeof *n);
    n->kind = kind;
    n->line = (uint32_t)mark.line + 1;
    n->col = (uint32_t)mark.column + 1;
    UTIL_PUSH(doc->nodes, doc->num_nodes, doc->nodes_capacity, n);
    return n;
}

/* The text of line `line` (1-based) of the document, without its newline. */
static const char *line_text(const UiYamlDoc *doc, uint32_t line, size_t *len)
{
    const char *p = doc->text, *end = doc->text + doc->size;
    for (uint32_t l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    if (p > end || (p == end && line > 1))
        return NULL;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    if (*len && p[*len - 1] == '\r')
        (*len)--;
    return p;
}

static bool valid_utf8(const unsigned char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        unsigned char ch = s[i];
        size_t extra = ch < 0x80 ? 0 : (ch & 0xe0) == 0xc0 ? 1 : (ch & 0xf0) == 0xe0 ? 2
                     : (ch & 0xf8) == 0xf0 ? 3 : 9;
        if (extra == 9 || (extra && i + extra >= len))
            return false;
        for (size_t k = 1; k <= extra; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += extra + 1;
    }
    return true;
}

static void format_diag(const UiYamlDoc *doc, uint32_t line, uint32_t col, const char *severity,
                        char *out, size_t out_size, const char *fmt, va_list ap)
{
    char msg[700];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t len = 0;
    const char *src = line && doc->text ? line_text(doc, line, &len) : NULL;
    if (line == 0) {
        snprintf(out, out_size, "%s: %s: %s", doc->path, severity, msg);
        return;
    }
    if (!src) {
        snprintf(out, out_size, "%s:%u:%u: %s: %s", doc->path, line, col, severity, msg);
        return;
    }
    /* Long lines are cut: the message must fit, and the caret matters more than the tail.
     * Control bytes, and any non-ASCII byte of a line that is not UTF-8, print as '?' so a
     * binary file cannot garble the terminal. libyaml counts columns in characters, so the
     * caret skips UTF-8 continuation bytes. */
    if (len > 200)
        len = 200;
    bool utf8 = valid_utf8((const unsigned char *)src, len);
    char shown[210], caret[210];
    size_t c = 0;
    uint32_t column = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)src[i];
        bool bad = (ch < 0x20 && ch != '\t') || ch == 0x7f || (ch >= 0x80 && !utf8);
        shown[i] = bad ? '?' : (char)ch;
        if (column < col && (!utf8 || (ch & 0xc0) != 0x80)) {
            caret[c++] = ch == '\t' ? '\t' : ' ';
            column++;
        }
    }
    caret[c++] = '^';
    caret[c] = '\0';
    snprintf(out, out_size, "%s:%u:%u: %s: %s\n%.*s\n%s", doc->path, line, col, severity, msg,
             (int)len, shown, caret);
}

static bool fail_at(const UiYamlDoc *doc, uint32_t line, uint32_t col, UtilError *err,
                    const char *fmt, va_list ap)
{
    if (err)
        format_diag(doc, line, col, "error", err->message, sizeof err->message, fmt, ap);
    return false;
}

bool ui_yaml_fail(const UiYamlDoc *doc, const UiYamlNode *at, UtilError *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(doc, at ? at->line : 0, at ? at->col : 0, err, fmt, ap);
    va_end(ap);
    return false;
}

void ui_yaml_note(const UiYamlDoc *doc, const UiYamlNode *at, char *buf, size_t size,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    format_diag(doc, at ? at->line : 0, at ? at->col : 0, "note", buf, size, fmt, ap);
    va_end(ap);
}

static bool fail_mark(const UiYamlDoc *doc, yaml_mark_t mark, UtilError *err, const char *fmt,
                      ...) UTIL_PRINTF(4, 5);
static bool fail_mark(const UiYamlDoc *doc, yaml_mark_t mark, UtilError *err, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(doc, (uint32_t)mark.line + 1, (uint32_t)mark.column + 1, err, fmt, ap);
    va_end(ap);
    return false;
}

/* Line and column of a byte offset, for reader errors that carry only an offset. */
static yaml_mark_t mark_of_offset(const UiYamlDoc *doc, size_t offset)
{
    yaml_mark_t m = {0};
    for (size_t i = 0; i < offset && i < doc->size; i++) {
        if (doc->text[i] == '\n') {
            m.line++;
            m.column = 0;
        } else {
            m.column++;
        }
    }
    return m;
}

static bool parser_error(const UiYamlDoc *doc, const yaml_parser_t *parser, UtilError *err)
{
    const char *problem = parser->problem ? parser->problem : "malformed YAML";
    if (parser->error == YAML_READER_ERROR)
        return fail_mark(doc, mark_of_offset(doc, parser->problem_offset), err,
                         "invalid YAML text: %s (expected UTF-8 text)", problem);
    if (parser->context)
        return fail_mark(doc, parser->problem_mark, err, "invalid YAML: %s (%s at line %zu)",
                         problem, parser->context, parser->context_mark.line + 1);
    return fail_mark(doc, parser->problem_mark, err, "invalid YAML: %s", problem);
}

/* Maps with more keys than this get a hash set of their keys for the duplicate check; a
 * scan of every earlier key made a map of 200,000 keys take minutes. */
#define SCAN_KEYS 16

typedef struct Frame {
    UiYamlNode *node;
    size_t capacity;
    UiYamlNode *pending_key; /* maps: a key waiting for its value */
    uint32_t *set;           /* maps past SCAN_KEYS keys: open addressing, key index + 1 */
    uint32_t set_size;       /* a power of two, at least twice the keys */
} Frame;

static uint32_t hash_text(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of `key` in f's set: the one holding it, or the empty one where it goes. */
static uint32_t *set_slot(const Frame *f, const char *key)
{
    uint32_t mask = f->set_size - 1;
    for (uint32_t i = hash_text(key) & mask;; i = (i + 1) & mask)
        if (!f->set[i] || strcmp(f->node->keys[f->set[i] - 1]->text, key) == 0)
            return &f->set[i];
}

/* Adds the map's key `index` to its set, building or growing the set when needed. */
static void set_add(Frame *f, uint32_t index)
{
    uint32_t keys = index + 1;
    if (keys <= SCAN_KEYS)
        return;
    if (keys * 2 > f->set_size) {
        free(f->set);
        f->set_size = f->set_size ? f->set_size * 2 : 4 * SCAN_KEYS;
        f->set = util_calloc(f->set_size, sizeof *f->set);
        for (uint32_t i = 0; i + 1 < keys; i++)
            *set_slot(f, f->node->keys[i]->text) = i + 1;
    }
    *set_slot(f, f->node->keys[index]->text) = index + 1;
}

/* The earlier key of f's map spelled `key`, or NULL. */
static const UiYamlNode *find_key(const Frame *f, const char *key)
{
    if (f->set) {
        uint32_t at = *set_slot(f, key);
        return at ? f->node->keys[at - 1] : NULL;
    }
    for (uint32_t i = 0; i < f->node->count; i++)
        if (strcmp(f->node->keys[i]->text, key) == 0)
            return f->node->keys[i];
    return NULL;
}

static void push_child(UiYamlNode *parent, Frame *f, UiYamlNode *key, UiYamlNode *child)
{
    if (parent->count + 1 > f->capacity) {
        size_t cap = f->capacity;
        util_reserve((void **)&parent->items, &cap, parent->count + 1, sizeof *parent->items);
        if (parent->kind == UI_YAML_MAP) {
            size_t kcap = f->capacity;
            util_reserve((void **)&parent->keys, &kcap, parent->count + 1, sizeof *parent->keys);
        }
        f->capacity = cap;
    }
    if (parent->kind == UI_YAML_MAP) {
        parent->keys[parent->count] = key;
        set_add(f, parent->count);
    }
    parent->items[parent->count++] = child;
}

/* Attaches a finished or opened node to the container on top of the stack. */
static bool attach(UiYamlDoc *doc, Frame *stack, int depth, UiYamlNode *n, UtilError *err)
{
    if (depth == 0) {
        doc->root = n;
        return true;
    }
    Frame *f = &stack[depth - 1];
    if (f->node->kind == UI_YAML_LIST) {
        push_child(f->node, f, NULL, n);
        return true;
    }
    if (!f->pending_key) {
        if (n->kind != UI_YAML_SCALAR)
            return ui_yaml_fail(doc, n, err, "expected a plain key (a name), not a %s",
                                n->kind == UI_YAML_LIST ? "list" : "map");
        const UiYamlNode *first = find_key(f, n->text);
        if (first)
            return ui_yaml_fail(doc, n, err, "duplicate key '%s' (first given at line %u)",
                                n->text, first->line);
        f->pending_key = n;
        return true;
    }
    push_child(f->node, f, f->pending_key, n);
    f->pending_key = NULL;
    return true;
}

static bool build_events(UiYamlDoc *doc, yaml_parser_t *parser, Frame *stack, int *depth_out,
                         UtilError *err)
{
    int depth = 0, documents = 0;
    for (;;) {
        *depth_out = depth;
        yaml_event_t ev;
        if (!yaml_parser_parse(parser, &ev))
            return parser_error(doc, parser, err);
        bool ok = true, done = false;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                ok = fail_mark(doc, ev.start_mark, err,
                               "expected one YAML document; found a second one here");
            break;
        case YAML_ALIAS_EVENT:
            ok = fail_mark(doc, ev.start_mark, err,
                           "aliases (*%s) are not supported; write the value out",
                           (const char *)ev.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT: {
            UiYamlNode *n = new_node(doc, UI_YAML_SCALAR, ev.start_mark);
            n->text = util_strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
            n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
                        (ev.data.scalar.tag &&
                         strcmp((const char *)ev.data.scalar.tag, YAML_STR_TAG) == 0);
            if (strlen(n->text) != ev.data.scalar.length)
                ok = ui_yaml_fail(doc, n, err, "expected text without NUL characters");
            else
                ok = attach(doc, stack, depth, n, err);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            UiYamlNode *n = new_node(doc, ev.type == YAML_SEQUENCE_START_EVENT ? UI_YAML_LIST
                                                                               : UI_YAML_MAP,
                                     ev.start_mark);
            if (depth >= MAX_DEPTH) {
                ok = ui_yaml_fail(doc, n, err, "nesting deeper than %d levels", MAX_DEPTH);
                break;
            }
            ok = attach(doc, stack, depth, n, err);
            stack[depth++] = (Frame){.node = n};
            *depth_out = depth;
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0)
                free(stack[--depth].set);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (!ok)
            return false;
        if (done)
            return true;
    }
}

static bool build(UiYamlDoc *doc, yaml_parser_t *parser, UtilError *err)
{
    Frame stack[MAX_DEPTH];
    int depth = 0;
    bool ok = build_events(doc, parser, stack, &depth, err);
    while (depth > 0) /* the frames still open when it stopped */
        free(stack[--depth].set);
    return ok;
}

UiYamlDoc *ui_yaml_parse(const char *text, size_t size, const char *path, UtilError *err)
{
    UiYamlDoc *doc = util_calloc(1, sizeof *doc);
    doc->path = util_strdup(path);
    doc->text = util_strndup(text, size);
    doc->size = size;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fprintf(stderr, "lockstep: fatal: out of memory initializing the YAML parser\n");
        abort();
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)doc->text, size);
    bool ok = build(doc, &parser, err);
    yaml_parser_delete(&parser);
    if (!ok) {
        ui_yaml_free(doc);
        return NULL;
    }
    return doc;
}

UiYamlDoc *ui_yaml_load_file(const char *path, UtilError *err)
{
    size_t size;
    char *text = util_read_file(path, &size, err);
    if (!text)
        return NULL;
    UiYamlDoc *doc = ui_yaml_parse(text, size, path, err);
    free(text);
    return doc;
}

void ui_yaml_free(UiYamlDoc *doc)
{
    if (!doc)
        return;
    for (uint32_t i = 0; i < doc->num_nodes; i++) {
        free(doc->nodes[i]->text);
        free(doc->nodes[i]->keys);
        free(doc->nodes[i]->items);
        free(doc->nodes[i]);
    }
    free(doc->nodes);
    free(doc->text);
    free(doc->path);
    free(doc);
}

const UiYamlNode *ui_yaml_get(const UiYamlNode *map, const char *key)
{
    if (!map || map->kind != UI_YAML_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->count; i++)
        if (strcmp(map->keys[i]->text, key) == 0)
            return map->items[i];
    return NULL;
}

const UiYamlNode *ui_yaml_key_of(const UiYamlNode *map, const UiYamlNode *value)
{
    if (!map || map->kind != UI_YAML_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->count; i++)
        if (map->items[i] == value)
            return map->keys[i];
    return NULL;
}

bool ui_yaml_check_keys(const UiYamlDoc *doc, const UiYamlNode *map, const char *what,
                        const char *const *allowed, UtilError *err)
{
    for (uint32_t i = 0; i < map->count; i++) {
        bool known = false;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, map->keys[i]->text) == 0;
        if (known)
            continue;
        char list[400];
        size_t len = 0;
        list[0] = '\0';
        for (const char *const *a = allowed; *a; a++) {
            int n = snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", *a);
            if (n < 0 || (size_t)n >= sizeof list - len)
                break;
            len += (size_t)n;
        }
        return ui_yaml_fail(doc, map->keys[i], err, "unknown key '%s' in %s; expected one of: %s",
                            map->keys[i]->text, what, list);
    }
    return true;
}

/* ---- numbers ------------------------------------------------------------------------------ */

static bool parse_uint_digits(const char *p, int base, uint64_t *out)
{
    if (!*p)
        return false;
    uint64_t v = 0;
    for (; *p; p++) {
        if (*p == '_')
            continue;
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            return false;
        if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return true;
}

bool ui_yaml_parse_number(const char *text, UiNumber *out)
{
    *out = (UiNumber){0};
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
        out->magnitude = text[0] == 't';
        return true;
    }
    const char *p = text;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF") || !strcmp(p, "inf")) {
        out->is_float = true;
        out->f = neg ? -INFINITY : INFINITY;
        return true;
    }
    if (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN") || !strcmp(p, "nan")) {
        out->is_float = true;
        out->f = NAN;
        return true;
    }
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16;
    else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
        base = 8;
    else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2;
    if (base != 10) {
        if (!parse_uint_digits(p + 2, base, &out->magnitude))
            return false;
        out->negative = neg && out->magnitude != 0;
        return true;
    }
    if (parse_uint_digits(p, 10, &out->magnitude)) {
        out->negative = neg && out->magnitude != 0;
        return true;
    }
    /* A float: digits with a '.' and/or an exponent, nothing else. */
    bool digits = false, dot = false, exp = false;
    for (const char *q = p; *q; q++) {
        if (*q >= '0' && *q <= '9')
            digits = true;
        else if (*q == '.' && !dot && !exp)
            dot = true;
        else if ((*q == 'e' || *q == 'E') && digits && !exp) {
            exp = true;
            if (q[1] == '+' || q[1] == '-')
                q++;
            if (!(q[1] >= '0' && q[1] <= '9'))
                return false;
        } else
            return false;
    }
    if (!digits)
        return false;
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (*end || isinf(v)) /* 1e400: past the largest double, not infinity (.inf is that) */
        return false;
    out->is_float = true;
    out->f = neg ? -v : v;
    return true;
}

/* text is a number past the largest double (1e400, a 400-digit integer), which strtod
 * would take for infinity. */
static bool beyond_double(const char *text)
{
    const char *p = text + (text[0] == '-' || text[0] == '+');
    if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
        return false;
    if (p[0] == '0' && p[1] && strchr("xXoObB", p[1]))
        return false;
    char *end;
    double v = strtod(p, &end);
    return !*end && isinf(v);
}

/* "expected WHAT", saying why when the number is past the largest double. */
static bool number_fail(const UiYamlDoc *doc, const UiYamlNode *node, const char *what,
                        UtilError *err)
{
    if (node->kind == UI_YAML_SCALAR && !node->quoted && beyond_double(node->text))
        return ui_yaml_fail(doc, node, err, "expected %s; %.20s%s is past the largest double "
                            "(about 1.8e308): write .inf for infinity", what, node->text,
                            strlen(node->text) > 20 ? "..." : "");
    return ui_yaml_fail(doc, node, err, "expected %s", what);
}

bool ui_yaml_number(const UiYamlDoc *doc, const UiYamlNode *node, const char *what,
                    UiNumber *out, UtilError *err)
{
    if (node->kind != UI_YAML_SCALAR || node->quoted || !ui_yaml_parse_number(node->text, out))
        return number_fail(doc, node, what, err);
    return true;
}

bool ui_yaml_uint(const UiYamlDoc *doc, const UiYamlNode *node, const char *what, uint64_t min,
                  uint64_t max, uint64_t *out, UtilError *err)
{
    UiNumber n;
    if (node->kind != UI_YAML_SCALAR || node->quoted || !ui_yaml_parse_number(node->text, &n) ||
        n.negative)
        return number_fail(doc, node, what, err);
    if (n.is_float) {
        /* 1e6 is a fine way to write a count. */
        if (!(n.f >= 0 && n.f < 18446744073709551616.0) || n.f != floor(n.f))
            return ui_yaml_fail(doc, node, err, "expected %s", what);
        n.magnitude = (uint64_t)n.f;
    }
    if (n.magnitude < min && max == UINT64_MAX) /* the caller checks a real cap itself */
        return ui_yaml_fail(doc, node, err, "expected %s (at least %llu)", what,
                            (unsigned long long)min);
    if (n.magnitude < min || n.magnitude > max)
        return ui_yaml_fail(doc, node, err, "expected %s (%llu to %llu)", what,
                            (unsigned long long)min, (unsigned long long)max);
    *out = n.magnitude;
    return true;
}

bool ui_yaml_string(const UiYamlDoc *doc, const UiYamlNode *node, const char *what,
                    const char **out, UtilError *err)
{
    if (node->kind != UI_YAML_SCALAR || node->text[0] == '\0')
        return ui_yaml_fail(doc, node, err, "expected %s", what);
    *out = node->text;
    return true;
}

double ui_number_to_double(const UiNumber *n)
{
    if (n->is_float)
        return n->f;
    return n->negative ? -(double)n->magnitude : (double)n->magnitude;
}

UiNumber ui_number_from_i64(int64_t v)
{
    UiNumber n = {0};
    n.negative = v < 0;
    n.magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return n;
}

UiNumber ui_number_from_u64(uint64_t v) { return (UiNumber){.magnitude = v}; }

UiNumber ui_number_from_double(double v) { return (UiNumber){.is_float = true, .f = v}; }
