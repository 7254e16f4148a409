/*
 * parse.h — what the parser's files share (parse_decl.c: program scope, types and
 * declarations; parse_stmt.c: statements and scopes; parse_expr.c: expressions, implicit
 * conversions and builtin calls; parse_call.c: constructors and calls' arguments;
 * overload.c: overloaded functions and operators; parse_struct.c and parse_method.c:
 * structs' member functions and their calls). Not part of the stage contract
 * (lang_internal.h).
 *
 * AST conventions the parser guarantees beyond lang_internal.h, so codegen never guesses:
 *  - every expression node has its type; operands of arithmetic are already converted to the
 *    operation's type (LND_CAST between scalars or between vectors of the same length);
 *  - a scalar becoming a vector is LND_CONSTRUCT of the vector type with ONE scalar argument
 *    of the element type (broadcast); vector constructors otherwise have args whose
 *    components sum to the length, each of the element type (vectors as vectors of it);
 *  - a reference variable (`constant T& x`) reads as LND_DEREF of its LND_VAR (pointer type
 *    with is_reference set);
 *  - an array used as a pointer is LND_ADDR of the array expression (pointer to element);
 *  - pointer + integer is LND_ADD with the pointer type (the integer keeps its own type);
 *    pointer - pointer is LND_SUB typed long (elements, not bytes);
 *  - conditions (if/for/do/?:/!/&&/||) are converted to bool;
 *  - program-scope scalar constants are replaced by their folded LND_NUM at each use.
 */
#ifndef LOCKSTEP_LANG_PARSE_H
#define LOCKSTEP_LANG_PARSE_H

#include "lang_internal.h"

/* How deeply expressions and statements may nest. Each level costs a dozen stack frames of
 * recursive descent; 256 keeps even sanitizer builds far from the stack limit, and no real
 * kernel nests a tenth as deep. */
#define LANG_P_MAX_DEPTH 256

typedef struct LangTemplate LangTemplate;
typedef struct LangClass LangClass;
typedef struct LangMethod LangMethod;
typedef struct LangPartial LangPartial;

/* One name visible in a scope. */
typedef struct LangSym {
    struct LangSym *next;
    const char *name;
    int len;
    LangVar *var;          /* a variable */
    LangType *type;        /* a typedef, struct, enum or template parameter */
    LangFunction *func;    /* a function */
    LangTemplate *tmpl;    /* a function template */
    bool is_enum_const;    /* an enumerator, or a value template parameter */
    int64_t enum_value;
    LangType *const_type;  /* is_enum_const: its type (NULL: int) */
    LangClass *member_of;  /* in a class's scope: a data member (member) or, with member
                            * NULL, the name of member functions */
    LangMember *member;
} LangSym;

typedef struct LangScope {
    struct LangScope *up;
    LangSym *syms;
} LangScope;

struct LangTemplate {
    LangTemplate *next;
    bool is_struct;        /* a struct (or class) template: instances are types */
    LangToken *name_tok;
    LangToken *start;      /* first token after `template <...>` */
    LangToken *open;       /* the "(" of its function's parameter list */
    LangToken **params;    /* parameter name tokens */
    LangType **param_types;/* NULL: a type parameter (typename T); else a value parameter's
                            * integer type (int N) */
    LangToken **defaults;  /* the first token of each parameter's default, or NULL */
    int num_params;
    bool is_kernel;        /* [[kernel]] or `kernel` on the template */
    struct LangInstance *instances;
    LangToken *decl_open;  /* a function template declared before its definition: the "(" of
                            * the declaration's parameters, whose default arguments each
                            * instance takes (parse_template.c) */
    LangToken **decl_params; /* the declaration's names of the template parameters */
    LangPartial *partials; /* a struct template's partial specializations (parse_partial.c) */
    LangClass *cls;        /* a member function template's struct (parse_functor.c) */
    const char *op;        /* an operator template's name ("operator+"; name_tok is then
                            * the `operator` token), or NULL */
};

/* Template arguments: a type per type parameter, a value per value parameter (types[k] is
 * then the parameter's type). */
typedef struct LangTemplateArgs {
    LangType *types[8];
    int64_t values[8];
} LangTemplateArgs;

typedef struct LangInstance {
    struct LangInstance *next;
    LangTemplateArgs args;
    LangFunction *func;
    bool decl_only;        /* parse the declaration only (overload.c's candidates) */
    bool is_explicit;      /* an explicit specialization (`template <> struct V<float>`) */
    LangType *type;        /* a struct template's instance */
    LangMethod *method;    /* a member function template's instance */
    LangType **param_types; /* a texture helper's instance: per parameter, the type its
                             * argument gave it, or NULL (parse_texhelp.c) */
} LangInstance;

/* A member function of a struct (parse_struct.c): an ordinary function named "Acc::add"
 * whose first parameter, unless it is static, is `this`, a pointer to the object in the
 * address space the function is qualified with (thread unless it says device, threadgroup
 * or constant). A constructor is a function that returns the object it builds. */
struct LangMethod {
    LangMethod *next;
    LangClass *cls;
    LangToken *name_tok;
    LangFunction *func;
    bool is_static, is_const, is_ctor;
    LangAddrSpace this_space;
    LangVar *this_var;     /* the `this` parameter; a constructor's object being built */
    LangScope *params;     /* the scope of its parameters, for parsing the body */
    LangToken *body;       /* the ":" of a constructor's initializers or the body's "{" */
    const char *op;        /* a member operator: its name ("operator[]"); name_tok is then
                            * the `operator` token */
    LangTemplate *tmpl;    /* the member function template this is an instance of, or NULL */
    bool in_body;          /* such an instance whose body is being parsed (a call of it
                            * there is recursion, reported as such) */
};

/* What a user struct has beyond its data: member functions, and the scope its members,
 * member functions, static constants and member types are names in (a member function's
 * body sees them first). */
struct LangClass {
    LangType *type;
    LangToken *name_tok;
    LangScope *scope;
    LangMethod *methods;
    LangTemplate *tmpl;    /* the struct template it is an instance of, or NULL */
    bool has_ctor;         /* a constructor declared: `T x;` and T(...) call one */
    LangMethod *implicit_ctor; /* no constructor declared, but members to initialize
                                * (default member initializers, members with
                                * constructors): what `T x;` and T() run */
    LangTemplate *member_tmpls;  /* member function templates, in source order */
    LangMethod **instance_out;   /* while an instance of one is declared: where its method
                                  * goes (not among the members) */
};

typedef struct LangCallEdge {
    struct LangCallEdge *next;
    LangFunction *caller, *callee;
    LangToken *tok;
} LangCallEdge;

/* A defined function's own size (expression and statement nodes), for bounding what
 * inlining every call makes of a kernel. */
typedef struct LangFnSize {
    struct LangFnSize *next;
    LangFunction *fn;
    long nodes;
    long inlined;          /* with every call inlined; -1 until computed */
} LangFnSize;

typedef struct LangParser {
    LangCtx *ctx;
    LangToken *tok;        /* current token */
    LangToken *prev;       /* the token before it (for "expected ';'" after it) */
    LangScope *scope;
    LangScope *global;
    LangUnit *unit;
    LangFunction *funcs_tail;
    LangVar *globals_tail;
    LangFunction *fn;      /* function being parsed, or NULL */
    LangVar *locals_tail;
    LangTemplate *templates;
    LangCallEdge *calls;
    int next_var_id;
    int loop_depth, switch_depth;
    LangNode *cur_switch, *last_case;
    int tg_bytes;          /* threadgroup memory of the kernel being parsed */
    int depth;             /* nesting of expressions and statements (bounded) */
    int inst_depth;        /* template instances being made inside one another (bounded) */
    int height;            /* tree levels above the expression being parsed (bounded) */
    long num_nodes;        /* nodes made so far */
    LangToken *addr_operand; /* where the operand of the unary & being parsed begins */
    LangFnSize *sizes;
    LangType *vote_types[2]; /* simd_vote, quad_vote, made on first use */
    LangMethod *method;    /* the member function whose body is being parsed, or NULL */
    struct LangTexHelper *tex_helpers; /* helpers taking textures (parse_texhelp.c) */
} LangParser;

typedef struct FnAttrs {
    bool is_kernel;
    char *host_name;
} FnAttrs;

typedef struct VarAttrs {
    LangAttr attr;
    int index;
    bool is_function_constant;
    LangNode *fc_cond;      /* function_constant(x): x as written (an index on a program-scope
                             * constant, a function constant's name on an argument) */
    LangToken *tok;
    bool texture;           /* the index is [[texture(n)]]'s (attr is LATTR_BUFFER) */
} VarAttrs;

/* tokens */
bool lang_p_is(const LangToken *tok, const char *s);
bool lang_p_is_name(const LangToken *tok);   /* identifier or keyword */
void lang_p_next(LangParser *p);
bool lang_p_consume(LangParser *p, const char *s);
void lang_p_skip(LangParser *p, const char *s);      /* expect s or report "expected 's'" */
void lang_p_expect_semi(LangParser *p);              /* at the end of the previous token */
char *lang_p_name(LangParser *p, const LangToken *tok);

/* scopes */
void lang_p_enter(LangParser *p);
void lang_p_leave(LangParser *p);
LangSym *lang_p_lookup(LangParser *p, const LangToken *tok);
/* The symbol tok names in the innermost scope only, or NULL. */
LangSym *lang_p_lookup_in_scope(LangParser *p, const LangToken *tok);
LangSym *lang_p_push_sym(LangParser *p, const LangToken *tok);
LangVar *lang_p_new_var(LangParser *p, LangToken *tok, LangType *ty, LangVarKind kind);

/* types and declarations (parse_decl.c) */
bool lang_p_is_typename(LangParser *p, LangToken *tok);
/* declspec: qualifiers, address space and base type; *space gets the space if spelled */
LangType *lang_p_declspec(LangParser *p, LangAddrSpace *space, bool *has_space);
/* A pointer/reference/array declarator around base; *name_tok gets the name (or NULL). */
LangType *lang_p_declarator(LangParser *p, LangType *base, LangAddrSpace space, bool has_space,
                            LangToken **name_tok);
LangType *lang_p_typename(LangParser *p);            /* a type in an expression */
/* [[...]] lists: function attributes into fa, variable/parameter ones into va (either NULL) */
void lang_p_attributes(LangParser *p, FnAttrs *fa, VarAttrs *va);
/* A function or program-scope variable declaration; inst: a template instance being made. */
void lang_p_toplevel(LangParser *p, FnAttrs *fa, LangInstance *inst);
/* A function's body from its "{" (open; the parameters' scope is open): parse_struct.c
 * wraps a constructor's body between the two halves. */
void lang_p_body_begin(LangParser *p, LangFunction *f);
void lang_p_body_end(LangParser *p, LangFunction *f, long nodes_before);
/* params = "(" ("void" | param ("," param)*)? ")": f's parameters, declared in the current
 * scope */
LangVar *lang_p_params(LangParser *p, LangFunction *f);
void lang_p_add_function(LangParser *p, LangFunction *f); /* to the unit's list */

/* structs with member functions (parse_struct.c: declarations and bodies; parse_method.c:
 * calls) */
/* struct-decl, after "struct" or "class"; inst: a struct template's instance to define
 * (named already), or NULL */
LangType *lang_p_struct_decl(LangParser *p, LangType *inst);
/* `float Acc::get() const { ... }` at the "::": a declared member function's body (ret
 * NULL: a constructor's, `Acc::Acc(...)`) */
void lang_p_method_define(LangParser *p, LangType *st, LangType *ret);
/* `obj.name(...)` (obj a struct value or lvalue) at the "(" (or the "<" of `obj.f<T>(...)`) */
LangNode *lang_p_method_call(LangParser *p, LangNode *obj, LangToken *name);
/* A call of cls's member function `name` (op NULL) or member operator op with these
 * arguments (parsed already) on obj (NULL: none); given: a member template's arguments.
 * A reference return gives the lvalue it designates. */
LangNode *lang_p_call_member(LangParser *p, LangClass *cls, LangToken *name, const char *op,
                             const LangTemplateArgs *given, LangNode *obj, LangNode **args,
                             int n);
LangVar *lang_p_method_params(const LangMethod *m); /* its parameters after `this` */
/* A name the current scope gives a class member (sym->member_of), at the name: `x` as
 * this->x, `f(...)` as this->f(...). */
LangNode *lang_p_member_name(LangParser *p, LangSym *sym, LangToken *tok);
/* `this` inside a member function, or NULL when tok is not `this` */
LangNode *lang_p_this(LangParser *p, LangToken *tok);
/* `S::name`, at the name after "::" */
LangNode *lang_p_static_member(LangParser *p, LangType *ty, LangToken *name);
/* T(args) or T{args} for a struct with constructors, at the "(" or "{"; NULL if T has
 * none (an aggregate) */
LangNode *lang_p_class_construct(LangParser *p, LangType *ty, LangToken *tok);
/* A local declared `T x;` or an element of one: T's default constructor's call, or NULL
 * when T has none to run */
LangNode *lang_p_default_init(LangParser *p, LangType *ty, LangToken *tok);
/* The values of ty's members from `from` on that an aggregate initializer leaves out, when
 * one of them has a default initializer or a constructor (NULL otherwise: zeros) */
LangNode *lang_p_member_defaults(LangParser *p, LangType *ty, LangMember *from, LangToken *tok);
LangNode *lang_p_var_node(LangParser *p, LangVar *v, LangToken *tok); /* LND_VAR of v */
/* `return;` in a constructor: the object */
LangNode *lang_p_ctor_result(LangParser *p, LangToken *tok);
/* A call argument converted to its parameter's type (a reference binds to an lvalue;
 * parse_call.c) */
LangNode *lang_p_pass_arg(LangParser *p, LangNode *a, LangType *pt, LangToken *at);
void lang_p_add_local(LangParser *p, LangVar *v);
/* The saved parser state back after parsing elsewhere (an instance, member function
 * bodies), keeping what that parsing added to the unit. */
void lang_p_restore(LangParser *p, const LangParser *saved);
/* T(args)/T{args} after the type name (parse_call.c) */
LangNode *lang_p_construct(LangParser *p, LangType *ty, LangToken *tok);

/* member operators and member function templates (parse_functor.c; their instances'
 * declarations and bodies, parse_struct.c and parse_template.c) */
/* After `operator` in a struct: the operator (consumed) as a name, "operator()". */
const char *lang_p_member_operator_name(LangParser *p);
/* A member operator's own rules (its arity; never static). */
void lang_p_check_member_operator(LangParser *p, const LangMethod *m);
/* `template <...> member-function` in a struct's body, at "template". */
void lang_p_member_template(LangParser *p, LangClass *cls);
bool lang_p_member_template_named(LangParser *p, const LangTemplate *t, const LangToken *name,
                                  const char *op);
/* t's instance for a call named name (or op) with these arguments, its declaration made
 * (not its body): NULL when t is not so named or cannot take them (*why says why). */
LangMethod *lang_p_member_template_candidate(LangParser *p, LangTemplate *t, LangToken *name,
                                             const char *op, const LangTemplateArgs *given,
                                             LangNode **args, int n, const char **why);
/* parse_template.c: the declaration of t's instance for args (made once, kept). */
LangMethod *lang_p_member_instantiate(LangParser *p, LangTemplate *t,
                                      const LangTemplateArgs *args, LangToken *at);
/* parse_struct.c: one member declaration at p->tok, in an instance's scope; its method. */
LangMethod *lang_p_member_instance_decl(LangParser *p, LangClass *cls);
/* parse_struct.c: an instance's body, parsed once a call chooses it. */
void lang_p_member_instance_body(LangParser *p, LangMethod *m);
/* Whether ty (a struct) has member operator op, itself or as a template. */
bool lang_p_has_member_op(const LangType *ty, const char *op);
/* obj(args) at the "(" */
LangNode *lang_p_functor_call(LangParser *p, LangNode *obj, LangToken *tok);
/* obj[i] after the "[" (tok) */
LangNode *lang_p_subscript_call(LangParser *p, LangNode *obj, LangToken *tok);
/* lhs OP rhs (rhs NULL: unary) with lhs a struct: its member operators for name and the free
 * operator functions set[] (nset) resolved together; NULL when no member takes them. */
LangNode *lang_p_member_operator_call(LangParser *p, LangToken *tok, const char *name,
                                      LangNode *lhs, LangNode *rhs, LangSym **set, int nset);
/* `return e;` in a function returning the reference ret: e's address. */
LangNode *lang_p_return_ref(LangParser *p, LangNode *e, LangType *ret, LangToken *at);
/* `template <...>` (at "<"): the parameters, in a new template (NULL for `template <>`). */
LangTemplate *lang_p_template_params(LangParser *p);

/* templates (parse_template.c): after `template`, a definition or an explicit instantiation */
void lang_p_template_def(LangParser *p, LangToken *tmpl_tok);
void lang_p_explicit_instantiation(LangParser *p);
LangFunction *lang_p_instantiate(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                 LangToken *at);
LangTemplateArgs *lang_p_template_args(LangParser *p, LangTemplate *t);
/* A struct template's instance for the template arguments at the "<" */
LangType *lang_p_struct_instance(LangParser *p, LangTemplate *t, LangToken *at);
/* At the "(" of a call of t without template arguments: the instance its arguments'
 * types give (the arguments are left to parse again). */
LangFunction *lang_p_deduce(LangParser *p, LangTemplate *t, LangToken *at);
/* t's arguments deduced from a call's argument types into *out; false with *why when they
 * cannot be. */
bool lang_p_deduce_args(LangParser *p, LangTemplate *t, LangType *const *arg_types, int n,
                        LangTemplateArgs *out, const char **why);
/* The instance for args if made, else its declaration alone (not kept). */
LangFunction *lang_p_instance_decl(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                   LangToken *at);

/* default arguments (parse_default.c) */
/* At the "=" after parameter v (earlier: the parameters before it): its default, kept. */
void lang_p_param_default(LangParser *p, LangVar *v, const LangVar *earlier);
/* A declaration's parameters take the defaults an earlier declaration of the function gave
 * (prior: its parameters, or NULL); then every parameter after a default needs one. */
void lang_p_merge_defaults(LangParser *p, const LangVar *prior, LangVar *params);
/* The parameters from params on before the first with a default: the arguments a call
 * must give. */
int lang_p_required_params(const LangVar *params);
/* The argument a call that leaves param out passes: its default, parsed again. */
LangNode *lang_p_default_arg(LangParser *p, LangVar *param);

/* partial specializations of struct templates (parse_partial.c) */
/* `template <...> struct Name<pattern> { ... };` at the "<" after the name (spec: its
 * template parameters) */
void lang_p_partial_spec(LangParser *p, LangTemplate *spec, LangToken *tmpl_tok);
/* The partial specialization of t an instance for args is made from (the most specialized
 * that matches; an error when several match and none is), its parameters' values in *out;
 * NULL when none matches. */
LangTemplate *lang_p_find_partial(LangParser *p, LangTemplate *t, const LangTemplateArgs *args,
                                  LangToken *at, LangTemplateArgs *out);

/* partial ordering of function templates (parse_order.c): whether a, whose candidate
 * declaration for a call of n arguments is afn, is more specialized than b (bfn) */
bool lang_p_more_specialized(LangParser *p, const LangTemplate *a, const LangFunction *afn,
                             const LangTemplate *b, const LangFunction *bfn, int n);

/* overloaded functions and operators (overload.c) */
/* Whether a "<" after `name` opens template arguments (name is a type or a template), not
 * a comparison: what a scan over tokens not yet parsed needs to find its commas. */
bool lang_p_angle_opens(LangParser *p, LangToken *name);
/* Which of t's template parameters tok names (its index), or -1 (parse_template.c). */
int lang_p_template_param(const LangTemplate *t, const LangToken *tok);
/* Appends member `name` of type ty to the built-in struct st (a tensor's or a texture's
 * hidden fields), at the next offset its alignment allows (parse_tensor.c). */
LangMember *lang_p_add_member(LangParser *p, LangType *st, LangMember **tail, const char *name,
                              LangType *ty);
bool lang_p_is_overloaded(LangParser *p, const LangSym *sym);
/* Whether one of the functions and templates sym's name has takes nargs arguments (a
 * function of the kernel's named as a builtin leaves the builtin the other counts). */
bool lang_p_set_takes(LangParser *p, const LangSym *sym, int nargs);
/* f just declared at program scope (name and parameters parsed; defining: its body follows):
 * the earlier declaration of the same function it repeats, or NULL for a new one; errors for
 * what cannot overload and for a second definition. */
LangFunction *lang_p_overload_declare(LangParser *p, LangFunction *f, bool defining);
/* The earlier template t repeats, or NULL. */
LangTemplate *lang_p_template_prior(LangParser *p, const LangTemplate *t);
/* The template that name names (NULL: none; an error if several). */
LangTemplate *lang_p_find_template(LangParser *p, LangToken *name);
/* A call of an overloaded name (sym), after the name. */
LangNode *lang_p_overload_call(LangParser *p, LangSym *sym, LangToken *name);
/* After the word `operator`: the operator (consumed) as a function name, "operator+". */
const char *lang_p_operator_name(LangParser *p);
/* lhs OP rhs (rhs NULL: unary) where an operand is a struct: a call of the kernel's operator
 * function for tok's operator, or NULL when it declares none. */
LangNode *lang_p_operator_call(LangParser *p, LangToken *tok, LangNode *lhs, LangNode *rhs);
/* C++'s choice among candidate parameter lists for one call of n arguments (member functions
 * and constructors, parse_method.c): params[k] is candidate k's first parameter (each takes
 * n). The best one's index; -1 when none can take the arguments, -2 when no one is better
 * than all the others (ambiguous). */
int lang_p_rank_params(LangParser *p, LangVar *const *params, LangTemplate *const *tmpls,
                       int ncand, LangNode **args, int n); /* tmpls[k]: k is its instance */
/* `thread const T&` for the reference ref (`thread T&`, any space): what a temporary binds */
LangType *lang_p_const_ref(LangParser *p, const LangType *ref);
/* Overloads get their signature as name ("act(half)"), for listings and findings. */
void lang_p_name_overloads(LangParser *p);

/* statements (parse_stmt.c) */
LangNode *lang_p_compound(LangParser *p, LangToken *open); /* after "{" */
LangNode *lang_p_local_decl(LangParser *p);                /* a declaration statement */
void lang_p_static_assert(LangParser *p);                  /* at "static_assert" */
char *lang_p_string(LangParser *p);                        /* adjacent string literals */
LangNode *lang_p_initializer(LangParser *p, LangType *ty);

/* expressions (parse_expr.c) */
LangNode *lang_p_new_node(LangParser *p, LangNodeKind kind, LangToken *tok);
LangNode *lang_p_expr(LangParser *p);
LangNode *lang_p_assign(LangParser *p);
/* A call of f after its name; args (n of them, each starting at starts[i]) already parsed,
 * or NULL to parse them from the "(" on (parse_call.c). */
LangNode *lang_p_call(LangParser *p, LangFunction *f, LangToken *tok, LangNode **args,
                      LangToken **starts, int n);
LangNode *lang_p_cond(LangParser *p);       /* conditional-expression (constant contexts) */
LangNode *lang_p_additive(LangParser *p);   /* additive-expression (template arguments) */
LangNode *lang_p_convert(LangParser *p, LangNode *node, LangType *ty, LangToken *tok);
/* `lhs op rhs` with nullptr as an operand and no pointer: nullptr == nullptr folded, any
 * other use an error (nullptr is no number); NULL when it is not such an expression. */
LangNode *lang_p_nullptr_binary(LangParser *p, LangNodeKind kind, LangNode *lhs, LangNode *rhs,
                                LangToken *tok);
LangNode *lang_p_to_bool(LangParser *p, LangNode *node);
LangNode *lang_p_num(LangParser *p, LangToken *tok, LangType *ty, uint64_t ival, double fval);
/* numeric_limits<T>::member (parse_limits.c): its constant, or NULL when p->tok does not
 * start one (or the kernel defines its own numeric_limits). */
LangNode *lang_p_numeric_limits(LangParser *p);
/* parse_traits.c: a value trait (`is_same_v<A, B>`, `is_integral<T>::value`) at p->tok as a
 * bool constant, or NULL when p->tok starts none; `if constexpr`'s condition (a constant, or
 * an error) and the skipping of a discarded branch; '>' (or half a '>>') closing a template
 * argument list */
LangNode *lang_p_type_trait(LangParser *p);
bool lang_p_constexpr_cond(LangParser *p);
void lang_p_skip_stmt(LangParser *p);
void lang_p_close_angle(LangParser *p);
/* parse_traits.c: type traits (`conditional_t<B, T, U>`, `enable_if<B, T>::type`,
 * `make_unsigned_t<T>`, ...): whether tok starts one (after `typename`, `metal::`), and the
 * type it names. A false enable_if names a type lang_p_is_disabled finds (in a pointer's
 * pointee too), which takes a template out of overload resolution; parse_template.c: whether
 * the declaration of t's instance for args names one, or a default argument of t does. */
bool lang_p_is_trait_type(LangParser *p, LangToken *tok);
LangType *lang_p_trait_type(LangParser *p);
bool lang_p_is_disabled(const LangType *ty);
bool lang_p_instance_disabled(LangParser *p, LangTemplate *t, const LangTemplateArgs *args);
bool lang_p_is_lvalue(const LangNode *node);

/* typing rules (type.c) */
LangNode *lang_p_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok,
                      bool explicit_cast);          /* lang_p_convert with casts allowed */
LangNode *lang_p_new_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok);
LangNode *lang_p_broadcast(LangParser *p, LangNode *scalar, LangType *vec, LangToken *tok);
LangType *lang_p_common_type(LangParser *p, LangType *a, LangType *b);
/* half with bfloat: MSL orders neither above the other, so arithmetic mixing them (either
 * alone or as a vector's elements) needs an explicit conversion */
bool lang_p_unordered_floats(const LangType *a, const LangType *b);
/* What to add to "invalid operands" for a and b: the way out of mixing half and bfloat */
const char *lang_p_operands_hint(const LangType *a, const LangType *b);
LangType *lang_p_promote(LangType *ty);
LangAddrSpace lang_p_lvalue_space(const LangNode *node);
LangVar *lang_p_root_var(const LangNode *node);  /* the variable an lvalue is part of */
bool lang_p_eval(LangParser *p, LangNode *node, int64_t *val);
/* A constant expression folded to LND_NUM (or LND_CONSTRUCT of folded args), else NULL. */
LangNode *lang_p_fold(LangParser *p, LangNode *node);

/* SIMD-group matrices (parse_matrix.c) */
LangType *lang_p_matrix_named(LangParser *p, const LangToken *tok); /* simdgroup_float8x8 */
LangType *lang_p_matrix_template(LangParser *p);  /* at simdgroup_matrix<T, 8, 8> */
LangNode *lang_p_matrix_filled(LangParser *p);    /* at make_filled_simdgroup_matrix<...>(v) */
LangNode *lang_p_matrix_construct(LangParser *p, LangType *ty, LangToken *tok, LangNode *args,
                                  int n);        /* T(v): a diagonal matrix */
/* m.thread_elements(), at the name after the '.' */
LangNode *lang_p_matrix_member(LangParser *p, LangNode *lhs, LangToken *name);
/* matrix types (parse_linalg.c) */
LangType *lang_p_matrix_type_named(LangParser *p, const LangToken *tok); /* float4x4, or NULL */
/* T(args...) of a matrix type T (n arguments) */
LangNode *lang_p_matrix_type_construct(LangParser *p, LangType *ty, LangToken *tok,
                                       LangNode *args, int n);
/* `lhs op rhs` with a matrix operand; NULL when neither is one */
LangNode *lang_p_matrix_binary(LangParser *p, LangNodeKind kind, LangNode *lhs, LangNode *rhs,
                               LangToken *tok);
/* `lhs op= rhs` (assign, so far typed as `lhs = ...`) with a matrix operand; NULL when
 * neither is one */
LangNode *lang_p_matrix_compound(LangParser *p, LangNode *assign, LangNodeKind op, LangNode *lhs,
                                 LangNode *rhs, LangToken *tok);
/* Types the arguments of transpose and determinant; the result type. */
LangType *lang_p_linalg_call(LangParser *p, LangNode **args, int n, LangToken *name, int id);
/* parse_access.c: `lhs.name` / `lhs->name` (a member or a swizzle), and `lhs[...]` after
 * its `[` (tok). */
LangNode *lang_p_member(LangParser *p, LangNode *lhs, LangToken *name);
/* addr_of: the postfix chain is the operand of unary &, so its last index may be one past
 * the end of an array (`&a[64]` of a[64], valid C++; `a[64]` alone is not) */
LangNode *lang_p_index(LangParser *p, LangNode *lhs, LangToken *tok, bool addr_of);
/* An index parsed as &'s operand (inside parentheses) that a postfix operator then uses:
 * one past the end is an error after all. */
void lang_p_index_used(LangParser *p, LangNode *node);
/* Types the arguments of simdgroup_load/store/multiply/multiply_accumulate; void. */
LangType *lang_p_matrix_call(LangParser *p, LangNode **args, int n, LangToken *name, int id);

/* Metal 4 tensor operations (parse_tensor.c) */
bool lang_p_skip_namespaces(LangParser *p);       /* metal::, mpp::, tensor_ops:: prefixes */
LangType *lang_p_tensor_type(LangParser *p);      /* at tensor<...> or matmul2d<...> */
/* matmul2d_descriptor(...) and its mode constants, dynamic_extent, dynamic_length_v<T>;
 * NULL when the tokens start none of them */
LangNode *lang_p_tensor_primary(LangParser *p);
/* a member function of a tensor type, at the "(" or "<" after its name */
LangNode *lang_p_tensor_member(LangParser *p, LangNode *lhs, LangToken *name);
LangNode *lang_p_tensor_elements(LangParser *p, LangNode *lhs); /* ct[...]: its elements */
/* T(pointer, dextents<int, 2>(columns, rows)) or T(pointer, extents<int, W, H>()): a tensor
 * over memory the kernel has, at the "(" */
LangNode *lang_p_tensor_construct(LangParser *p, LangType *ty, LangToken *tok);

/* textures (parse_texture.c) */
bool lang_p_is_texture_name(const LangToken *tok);  /* texture1d or texture2d before "<" */
LangType *lang_p_texture_type(LangParser *p);        /* at texture1d<...> or texture2d<...> */
/* A kernel argument's texture type with its pixel format from the manifest (or the default) */
LangType *lang_p_texture_param(LangParser *p, LangVar *v);
/* a member function of a texture, at the "(" after its name */
LangNode *lang_p_texture_member(LangParser *p, LangNode *lhs, LangToken *name);
/* A name a texture call's lowering text uses for a value the call was given. */
typedef struct LangHole {
    const char *name;
    LangNode *value;
    LangType *type;        /* what the value is converted to */
} LangHole;
/* Parses the MSL text (printf-style) as an expression where each hole's name stands for its
 * value (a variable of the right type as it is, anything else evaluated once into a
 * temporary first); its tokens have `at` as their origin. */
LangNode *lang_p_texture_expand(LangParser *p, LangToken *at, LangHole *holes, int n,
                                const char *fmt, ...) UTIL_PRINTF(5, 6);
/* The text of texel `index` of texture __tx, converted to a 4-vector of T */
void lang_p_texel_text(const LangTexFormatInfo *f, const char *T, const char *index, char *out,
                       size_t size);
/* tex's pixel format (an error at name if it has none: a texture in a variable) */
const LangTexFormatInfo *lang_p_texture_format(LangParser *p, const LangNode *tex,
                                               LangToken *name);
/* "(" args ")" of a call of name, at most max of them; how many (texture and tensor
 * member functions, parse_texture.c) */
int lang_p_call_args(LangParser *p, LangNode **args, int max, LangToken *name);
/* helpers taking textures and samplers (parse_texhelp.c) */
typedef struct LangTexHelper LangTexHelper;
/* At the body of f (defined at start; inst the template instance being parsed, or NULL):
 * when a parameter is a texture or sampler, keeps the body for instances and skips it */
bool lang_p_texhelp_defer(LangParser *p, LangFunction *f, LangToken *start, LangInstance *inst);
/* Gives f's parameters the types a texture helper's instance binds (after its params) */
void lang_p_texhelp_bind(LangParser *p, LangFunction *f, const LangInstance *inst);
/* The function a call of f runs: f, or for a helper taking textures its instance for the
 * arguments' formats and settings (the arguments are parsed here when *args is NULL) */
LangFunction *lang_p_texhelp_call(LangParser *p, LangFunction *f, LangToken *tok,
                                  LangNode ***args, LangToken ***starts, int *num_args);
/* A template parameter T deduced from a texture argument given for `texture2d<T, ...>`
 * (the function parameter's tokens [from, to)); false with *why when values conflict */
bool lang_p_texhelp_deduce(LangParser *p, const LangTemplate *t, LangToken *from, LangToken *to,
                           const LangType *arg, LangTemplateArgs *args, const char **why);
/* samplers (parse_sampler.c) */
LangType *lang_p_sampler_type(LangParser *p);     /* at `sampler`: its generic type */
/* sampler(args): a sampler type with the settings given, at the "(" */
LangNode *lang_p_sampler_construct(LangParser *p, LangType *ty, LangToken *tok);
/* t.sample(s, coord), at the "(" after `sample` */
LangNode *lang_p_texture_sample(LangParser *p, LangNode *tex, LangToken *name);

/* simd_vote and quad_vote (parse_vote.c) */
LangType *lang_p_vote_type(LangParser *p, bool quad);
LangType *lang_p_vote_named(LangParser *p, const LangToken *tok); /* simd_vote, quad_vote */
/* T(bits) or T{bits}, at the "(" or "{" after the type name */
LangNode *lang_p_vote_construct(LangParser *p, LangType *ty, LangToken *tok);
/* a conversion from or to a vote type (lang_p_cast sends them here) */
LangNode *lang_p_vote_cast(LangParser *p, LangNode *node, LangType *ty, LangToken *tok,
                           bool explicit);
/* v.all() or v.any(), at the name after the '.' */
LangNode *lang_p_vote_member(LangParser *p, LangNode *lhs, LangToken *name);

/* builtin calls (parse.c): the LangBuiltin named by tok, or -1; a call after its name */
int lang_p_builtin_id(const LangToken *tok);
LangNode *lang_p_builtin_call(LangParser *p, LangToken *name, int id, bool fast);

#endif
