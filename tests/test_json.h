/*
 * test_json.h — a tiny JSON validator for the suites that check lockstep's JSON output
 * (check --json, gpus/--stats=json, trace export): test_json_valid says whether a text is
 * exactly one JSON value, with nothing after it but white space.
 */
#ifndef LOCKSTEP_TEST_JSON_H
#define LOCKSTEP_TEST_JSON_H

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

typedef struct Json {
    const char *p;
    int depth;
} Json;

static inline void json_ws(Json *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n')
        j->p++;
}

static inline bool json_value(Json *j);

static inline bool json_string(Json *j)
{
    if (*j->p != '"')
        return false;
    j->p++;
    while (*j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)j->p[i]))
                        return false;
                j->p += 4;
            } else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
                return false;
            }
        }
        j->p++;
    }
    j->p++;
    return true;
}

static inline bool json_number(Json *j)
{
    const char *p = j->p;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (isdigit((unsigned char)*p))
        while (isdigit((unsigned char)*p))
            p++;
    else
        return false;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    j->p = p;
    return true;
}

static inline bool json_value(Json *j)
{
    json_ws(j);
    if (++j->depth > 64)
        return false;
    bool ok = true;
    char c = *j->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        json_ws(j);
        if (*j->p == close) {
            j->p++;
        } else {
            for (;;) {
                if (c == '{') {
                    json_ws(j);
                    if (!json_string(j))
                        return false;
                    json_ws(j);
                    if (*j->p++ != ':')
                        return false;
                }
                if (!json_value(j))
                    return false;
                json_ws(j);
                if (*j->p == ',') {
                    j->p++;
                    continue;
                }
                if (*j->p++ != close)
                    return false;
                break;
            }
        }
    } else if (c == '"') {
        ok = json_string(j);
    } else if (strncmp(j->p, "true", 4) == 0) {
        j->p += 4;
    } else if (strncmp(j->p, "false", 5) == 0) {
        j->p += 5;
    } else if (strncmp(j->p, "null", 4) == 0) {
        j->p += 4;
    } else {
        ok = json_number(j);
    }
    j->depth--;
    return ok;
}

static inline bool test_json_valid(const char *text)
{
    Json j = {text, 0};
    if (!json_value(&j))
        return false;
    json_ws(&j);
    return *j.p == '\0';
}

#endif
