/*
 * manifest.h — a launch manifest (launch.yaml), checked for shape and types: which kernel,
 * the grid, and for each argument its type, size, initial contents, expectation and dump.
 * docs/manifest.md is the user's reference for every key.
 *
 * Loading checks everything that can be checked without the kernel. Matching arguments to
 * the kernel's parameters and building buffers happens when binding (ui/bind.c); the nodes
 * kept here let those later checks still point at `file:line:col`.
 */
#ifndef LOCKSTEP_UI_MANIFEST_H
#define LOCKSTEP_UI_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../lang/lang.h"
#include "../sim/sim.h"
#include "../util/util.h"
#include "data.h"
#include "yaml.h"

typedef enum UiInitKind {
    UI_INIT_ZERO,    /* no init: zeros */
    UI_INIT_FILL,
    UI_INIT_RANGE,
    UI_INIT_RANDOM,
    UI_INIT_NORMAL,
    UI_INIT_VALUES,
    UI_INIT_FILE,
    UI_INIT_NONE     /* `none`: left uninitialized (zero-filled for now) */
} UiInitKind;

typedef struct UiInit {
    UiInitKind kind;
    const UiYamlNode *node;    /* the init value, for messages */
    UiNumber a, b;             /* fill: a; range: start a, step b; random: min a, max b */
    double mean, std_dev;      /* normal */
    uint64_t seed;             /* random, normal */
    const UiYamlNode *values;  /* values: the list */
    char *file;                /* file: the path, resolved against the manifest's folder */
} UiInit;

typedef struct UiExpect {
    bool present;
    const UiYamlNode *node;
    const UiYamlNode *values;  /* a list, or NULL when from a file */
    char *file;                /* resolved path, or NULL */
    const UiYamlNode *file_node;
    double rtol, atol;
    bool has_tolerance;        /* rtol or atol given: integers compare by tolerance too */
} UiExpect;

typedef enum UiDumpKind { UI_DUMP_NONE, UI_DUMP_NPY, UI_DUMP_BIN, UI_DUMP_STDOUT } UiDumpKind;

typedef struct UiDump {
    UiDumpKind kind;
    char *path;                /* resolved against the manifest's folder */
    const UiYamlNode *node;
} UiDump;

typedef struct UiArgSpec {
    char *name;
    const UiYamlNode *key;     /* the argument's name in `args:` */
    const UiYamlNode *map;     /* its settings */
    bool has_type;
    UiElemType type;
    const UiYamlNode *type_node;
    const char *struct_name;   /* `type: Params`, a name that is no element type: the
                                * kernel's struct it must be (its text in the document) */
    bool has_count;
    uint64_t count;
    const UiYamlNode *count_node;
    bool has_bytes;
    uint64_t bytes;
    const UiYamlNode *bytes_node;
    const UiYamlNode *value;   /* `value:` scalar or list, or NULL */
    UiInit init;
    UiExpect expect;
    UiDump dump;
    /* a tensor argument: its extents (columns, rows) and row pitch in elements */
    bool has_extents;
    uint32_t extents[2];
    const UiYamlNode *extents_node;
    uint32_t row_pitch;        /* 0: not given (the columns) */
    const UiYamlNode *row_pitch_node;
    /* a texture argument (`type: texture2d` or `texture1d`): its pixel format and size in
     * texels; `type` and `count` then describe its texels as a buffer (rgba8unorm: uchar4,
     * width x height of them) */
    uint8_t texture;           /* 0: not a texture; else its dimensions, 1 or 2 */
    LangTexFormat format;
    const UiYamlNode *format_node;
    uint32_t width, height;
} UiArgSpec;

typedef struct UiManifest {
    UiYamlDoc *doc;
    char *path;
    char *dir;                 /* the manifest's folder: relative paths start here */
    char *kernel;              /* as written */
    char *kernel_path;         /* resolved */
    const UiYamlNode *kernel_node;
    const char *entry;         /* NULL when not given */
    const UiYamlNode *entry_node;
    bool has_mode;
    SimMode mode;
    bool has_budget;
    uint64_t budget;
    bool by_threadgroups;      /* `threadgroups:` was given rather than `grid:` */
    uint32_t grid[3];
    const UiYamlNode *grid_node;
    uint32_t threadgroup[3];
    const UiYamlNode *threadgroup_node;
    const UiYamlNode *constants; /* a map (maybe empty), or NULL */
    UiArgSpec *args;
    uint32_t num_args;
} UiManifest;

/* Loads and checks a manifest file. NULL with err ("file:line:col: error: ...") when bad. */
UiManifest *ui_manifest_load(const char *path, UtilError *err);
/* The same from text; `path` names it in messages and anchors relative paths. */
UiManifest *ui_manifest_parse(const char *text, size_t size, const char *path, UtilError *err);
void ui_manifest_free(UiManifest *m);

const UiArgSpec *ui_manifest_arg(const UiManifest *m, const char *name);

#endif
