/*
 * preprocess_internal.h — what the preprocessor's two halves share: the state of one run
 * (Pre: the macro table, open conditionals, the include stack, the expansion budget) and the
 * macro operations the directives need. preprocess_macro.c owns macros and their expansion;
 * preprocess.c owns directives, #if evaluation, #include and the main loop.
 */
#ifndef LOCKSTEP_LANG_PREPROCESS_INTERNAL_H
#define LOCKSTEP_LANG_PREPROCESS_INTERNAL_H

#include "lang_internal.h"

enum {
    MAX_INCLUDE_DEPTH = 64,
    MAX_INCLUDE_BYTES = 64 << 20,
    MAX_ARG_DEPTH = 200,       /* macro calls nested in macro arguments */
    MAX_EXPR_DEPTH = 200,      /* nesting in an #if expression */
    MAX_EXPANSION = 1 << 20,   /* tokens copied by macro expansion, in all */
    MACRO_BUCKETS = 1024,
};

typedef enum MacroKind {
    MACRO_USER,      /* #define */
    MACRO_LITERAL,   /* a predefined constant: expands to a copy of `literal` */
    MACRO_LINE, MACRO_FILE, MACRO_COUNTER
} MacroKind;

typedef struct Macro Macro;
struct Macro {
    Macro *next;            /* hash chain */
    char *name;
    MacroKind kind;
    bool is_objlike;
    char **params;
    int num_params;
    char *va_name;          /* variadic: "__VA_ARGS__" or a GNU named parameter; else NULL */
    LangToken *body;        /* ends in LTK_EOF */
    LangToken literal;      /* MACRO_LITERAL */
};

typedef enum CondCtx { IN_THEN, IN_ELIF, IN_ELSE } CondCtx;

typedef struct CondIncl CondIncl;
struct CondIncl {
    CondIncl *next;
    CondCtx ctx;
    LangToken *tok;         /* the #if, for "unterminated" */
    bool included;          /* some branch was taken */
};

typedef struct IncludeLevel {
    LangFile *file;
    CondIncl *cond_at_entry;
} IncludeLevel;

typedef struct Pre {
    LangCtx *ctx;
    Macro *macros[MACRO_BUCKETS];
    CondIncl *cond;
    IncludeLevel includes[MAX_INCLUDE_DEPTH + 1];
    int num_includes;
    struct OnceFile *once_files; /* #pragma once (arena memory, as everything here, so an
                                  * error anywhere leaks nothing) */
    long work;              /* tokens copied by expansion so far */
    int arg_depth;
    int counter;
    LangToken *work_tok;    /* the outermost macro use, for "macro expansion too large" */
    bool no_unroll_next;    /* a loop pragma asked that the next loop not be unrolled */
} Pre;

/* Whether a pragma's text (after `#pragma`, or a _Pragma's string) asks that the next loop
 * not be unrolled: nounroll, unroll 1, unroll(1), clang loop unroll(disable), clang loop
 * unroll_count(1), spaces anywhere. */
bool lang_pp_is_nounroll(const char *text, size_t len);

/* Token tests: identifiers include keywords (both can name macros). */
bool lang_pp_is_ident(const LangToken *tok);
bool lang_pp_is_punct(const LangToken *tok, const char *s);
bool lang_pp_same_name(const LangToken *tok, const char *name);
char *lang_pp_tok_name(Pre *pp, const LangToken *tok);
/* An EOF token placed at tok, ending a token list (a directive line, a macro argument). */
LangToken *lang_pp_new_eof(Pre *pp, const LangToken *tok);

/* The macro table. */
Macro *lang_pp_find_macro(Pre *pp, const LangToken *tok);
Macro *lang_pp_add_macro(Pre *pp, const char *name, MacroKind kind);
void lang_pp_remove_macro(Pre *pp, const LangToken *tok);
/* The index of a parameter named by tok (num_params for the variadic one), or -1. */
int lang_pp_find_param(const Macro *m, const LangToken *tok);
void lang_pp_define_predefined(Pre *pp);

/* Expands the macro named by tok if it is one (and not hidden); on success *rest is the
 * expansion spliced in front of what followed the use. */
bool lang_pp_expand_macro(Pre *pp, LangToken **rest, LangToken *tok);
/* Macro-expands a token list that ends in EOF (a macro argument or an #if line). */
LangToken *lang_pp_expand_list(Pre *pp, LangToken *tok);

#endif
