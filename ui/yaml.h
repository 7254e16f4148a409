/*
 * yaml.h — the one place libyaml is wrapped. A YAML file becomes a small tree of scalars,
 * lists and maps that remembers where every node was written (1-based line and column), so
 * every later check can say `file:line:col: error: ...`. Anchors and aliases are rejected
 * (they buy a manifest nothing and invite exponential documents); duplicate map keys are
 * errors, as are multiple documents in one file.
 */
#ifndef LOCKSTEP_UI_YAML_H
#define LOCKSTEP_UI_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

typedef enum UiYamlKind { UI_YAML_SCALAR, UI_YAML_LIST, UI_YAML_MAP } UiYamlKind;

typedef struct UiYamlNode UiYamlNode;
struct UiYamlNode {
    UiYamlKind kind;
    uint32_t line, col;   /* 1-based position of the node's first character */
    char *text;           /* scalars: the value as written (quotes removed) */
    bool quoted;          /* scalars in quotes or block style: strings, never numbers */
    UiYamlNode **keys;    /* maps: the keys (always scalars), parallel to items */
    UiYamlNode **items;   /* lists: the items; maps: the values */
    uint32_t count;
};

typedef struct UiYamlDoc {
    char *path;           /* as given, for messages */
    char *text;
    size_t size;
    UiYamlNode *root;     /* NULL when the file holds no document */
    UiYamlNode **nodes;   /* every node, for freeing */
    uint32_t num_nodes;
    size_t nodes_capacity;
} UiYamlDoc;

/* Parses text (named `path` in messages). Returns NULL with err on invalid YAML. */
UiYamlDoc *ui_yaml_parse(const char *text, size_t size, const char *path, UtilError *err);
UiYamlDoc *ui_yaml_load_file(const char *path, UtilError *err);
void ui_yaml_free(UiYamlDoc *doc);

/* The value of key in a map, or NULL. */
const UiYamlNode *ui_yaml_get(const UiYamlNode *map, const char *key);
/* The key node of a map entry holding `value`, or NULL; for pointing at a key. */
const UiYamlNode *ui_yaml_key_of(const UiYamlNode *map, const UiYamlNode *value);

/* Formats "path:line:col: error: MESSAGE", then the source line and a caret under the
 * column, into err and returns false. A NULL node points at the file only. */
bool ui_yaml_fail(const UiYamlDoc *doc, const UiYamlNode *at, UtilError *err, const char *fmt, ...)
    UTIL_PRINTF(4, 5);
/* The same as a "note:" into buf, for pointing at where a failing file was named. */
void ui_yaml_note(const UiYamlDoc *doc, const UiYamlNode *at, char *buf, size_t size,
                  const char *fmt, ...) UTIL_PRINTF(5, 6);

/* Fails unless every key of map is one of `allowed` (NULL-terminated); the message names
 * the allowed keys. `what` says whose keys they are ("manifest", "arg 'a'"). */
bool ui_yaml_check_keys(const UiYamlDoc *doc, const UiYamlNode *map, const char *what,
                        const char *const *allowed, UtilError *err);

/* A number as YAML writes it: an integer held exactly (sign and magnitude, so the whole range
 * of both long and ulong fits) or a float. true/false are the integers 1/0. */
typedef struct UiNumber {
    bool is_float;
    bool negative;     /* integers */
    uint64_t magnitude;
    double f;          /* floats */
} UiNumber;

/* Parses a plain YAML scalar as a number: decimal, 0x/0o/0b integers, floats with `.` or an
 * exponent, .inf/-.inf/.nan (and inf/nan), true/false. */
bool ui_yaml_parse_number(const char *text, UiNumber *out);
/* Parses node as a number; fails at node with "expected WHAT". */
bool ui_yaml_number(const UiYamlDoc *doc, const UiYamlNode *node, const char *what,
                    UiNumber *out, UtilError *err);
/* A non-negative integer in [min, max]; fails with "expected WHAT". */
bool ui_yaml_uint(const UiYamlDoc *doc, const UiYamlNode *node, const char *what, uint64_t min,
                  uint64_t max, uint64_t *out, UtilError *err);
/* A plain or quoted string scalar; fails with "expected WHAT". */
bool ui_yaml_string(const UiYamlDoc *doc, const UiYamlNode *node, const char *what,
                    const char **out, UtilError *err);

double ui_number_to_double(const UiNumber *n);
UiNumber ui_number_from_i64(int64_t v);
UiNumber ui_number_from_u64(uint64_t v);
UiNumber ui_number_from_double(double v);

#endif
