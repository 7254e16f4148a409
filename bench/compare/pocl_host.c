// pocl_host.c — runs one kernel described by an Oclgrind simulation file (.sim) on the
// first OpenCL platform (PoCL on the benchmark machine), so PoCL and oclgrind-kernel run
// exactly the same kernel with the same arguments and sizes.
//
//   pocl_host FILE.sim [--reps N] [--out DIR]
//
// It builds the program from source, runs the kernel once to warm up (PoCL compiles its
// work-group function on the first launch), then N times, each time after restoring every
// buffer's initial contents (so accumulating kernels such as the histogram give the same
// result), timing enqueue + clFinish. It prints `kernel_ms MEDIAN` and writes each argument
// marked `dump` to DIR/NAME.bin as raw bytes. The .sim subset understood: the program
// file, kernel name, NDRange and work-group size, then per argument a header
// `<size=BYTES [TYPE] [fill=V | range=A:STEP:B | noinit] [dump]>` followed by the values
// when no initializer is given. Exit status 0 on success, 1 on an OpenCL failure, 2 on bad
// input.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ARGS = 16 };

typedef struct {
    char type[256];
    size_t size;
    unsigned char *data;  // initial bytes (NULL for local arguments)
    int dump;
    cl_uint qual;         // CL_KERNEL_ARG_ADDRESS_*
    cl_mem mem;
    char name[64];
} Arg;

static char *g_text;      // the .sim file with comments blanked
static char *g_pos;

static void die(int status, const char *msg, const char *detail)
{
    fprintf(stderr, "pocl_host: %s%s%s\n", msg, detail ? ": " : "", detail ? detail : "");
    exit(status);
}

static void cl_check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        char buf[32];
        snprintf(buf, sizeof buf, "error %d", (int)err);
        die(1, what, buf);
    }
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(2, path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        die(2, path, "cannot read");
    buf[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

// Next whitespace-separated token; '<' and '>' are tokens of their own.
static int next_token(char *out, size_t cap)
{
    while (*g_pos == ' ' || *g_pos == '\t' || *g_pos == '\n' || *g_pos == '\r')
        g_pos++;
    if (!*g_pos)
        return 0;
    size_t n = 0;
    if (*g_pos == '<' || *g_pos == '>') {
        out[n++] = *g_pos++;
    } else {
        while (*g_pos && !strchr(" \t\r\n<>", *g_pos) && n + 1 < cap)
            out[n++] = *g_pos++;
    }
    out[n] = 0;
    return 1;
}

static size_t type_size(const char *t)
{
    if (!strcmp(t, "char") || !strcmp(t, "uchar")) return 1;
    if (!strcmp(t, "short") || !strcmp(t, "ushort")) return 2;
    if (!strcmp(t, "int") || !strcmp(t, "uint") || !strcmp(t, "float")) return 4;
    if (!strcmp(t, "long") || !strcmp(t, "ulong") || !strcmp(t, "double")) return 8;
    return 0;
}

static void store(unsigned char *p, const char *type, double v)
{
    if (!strcmp(type, "float")) { float f = (float)v; memcpy(p, &f, 4); }
    else if (!strcmp(type, "double")) memcpy(p, &v, 8);
    else if (!strcmp(type, "char")) { int8_t x = (int8_t)v; memcpy(p, &x, 1); }
    else if (!strcmp(type, "uchar")) { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); }
    else if (!strcmp(type, "short")) { int16_t x = (int16_t)v; memcpy(p, &x, 2); }
    else if (!strcmp(type, "ushort")) { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); }
    else if (!strcmp(type, "int")) { int32_t x = (int32_t)v; memcpy(p, &x, 4); }
    else if (!strcmp(type, "uint")) { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); }
    else if (!strcmp(type, "long")) { int64_t x = (int64_t)v; memcpy(p, &x, 8); }
    else { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); }
}

static double parse_num(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end)
        die(2, "bad number in .sim file", s);
    return v;
}

// Oclgrind's range accumulates in the element type (value += step); so do we.
static void fill_range(Arg *a, size_t es, const char *spec)
{
    double v[3];
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *c = strchr(p, ':');
        if (i < 2 && !c)
            die(2, "range needs START:STEP:END", spec);
        if (c)
            *c = 0;
        v[i] = parse_num(p);
        p = c ? c + 1 : p;
    }
    size_t n = a->size / es;
    int is_float = !strcmp(a->type, "float");
    float f = (float)v[0];
    double d = v[0];
    for (size_t k = 0; k < n; k++) {
        store(a->data + k * es, a->type, is_float ? (double)f : d);
        f += (float)v[1];
        d += v[1];
    }
}

static void parse_arg(Arg *a, cl_kernel kernel, cl_uint index)
{
    char tok[256], fill[256] = "", range[256] = "";
    int noinit = 0;
    cl_check(clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                sizeof a->qual, &a->qual, NULL), "clGetKernelArgInfo");
    clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_NAME, sizeof a->name, a->name, NULL);
    if (!next_token(tok, sizeof tok) || strcmp(tok, "<"))
        die(2, "expected an argument header <...> for", a->name);
    a->size = (size_t)-1;
    for (;;) {
        if (!next_token(tok, sizeof tok))
            die(2, "missing '>' after the header of", a->name);
        if (!strcmp(tok, ">"))
            break;
        if (!strncmp(tok, "size=", 5))
            a->size = (size_t)parse_num(tok + 5);
        else if (!strncmp(tok, "fill=", 5))
            snprintf(fill, sizeof fill, "%s", tok + 5);
        else if (!strncmp(tok, "range=", 6))
            snprintf(range, sizeof range, "%s", tok + 6);
        else if (!strcmp(tok, "noinit"))
            noinit = 1;
        else if (!strcmp(tok, "dump"))
            a->dump = 1;
        else if (type_size(tok))
            snprintf(a->type, sizeof a->type, "%s", tok);
        else if (strcmp(tok, "ro") && strcmp(tok, "wo"))
            die(2, "unsupported header token", tok);
    }
    if (a->size == (size_t)-1)
        die(2, "size= required for", a->name);
    if (!a->type[0])
        snprintf(a->type, sizeof a->type, "uchar");
    size_t es = type_size(a->type);
    if (a->size % es)
        die(2, "size is not a multiple of the type's size for", a->name);
    if (a->qual == CL_KERNEL_ARG_ADDRESS_LOCAL)
        return;
    a->data = calloc(1, a->size ? a->size : 1);
    if (!a->data)
        die(1, "out of memory", NULL);
    if (fill[0]) {
        double v = parse_num(fill);
        for (size_t k = 0; k < a->size / es; k++)
            store(a->data + k * es, a->type, v);
    } else if (range[0]) {
        fill_range(a, es, range);
    } else if (!noinit) {
        for (size_t k = 0; k < a->size / es; k++) {
            if (!next_token(tok, sizeof tok))
                die(2, "too few values for", a->name);
            store(a->data + k * es, a->type, parse_num(tok));
        }
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    const char *sim = NULL, *outdir = ".";
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outdir = argv[++i];
        else if (argv[i][0] != '-' && !sim)
            sim = argv[i];
        else
            die(2, "usage: pocl_host FILE.sim [--reps N] [--out DIR]", NULL);
    }
    if (!sim || reps < 1)
        die(2, "usage: pocl_host FILE.sim [--reps N] [--out DIR]", NULL);

    g_text = read_file(sim, NULL);
    for (char *p = g_text; *p; p++)      // blank comments, as oclgrind does
        if (*p == '#')
            while (*p && *p != '\n')
                *p++ = ' ';
    g_pos = g_text;
    char progfile[1024], kname[256], tok[64];
    size_t global[3], local[3];
    if (!next_token(progfile, sizeof progfile) || !next_token(kname, sizeof kname))
        die(2, "expected the program file and kernel name in", sim);
    for (int i = 0; i < 6; i++) {
        if (!next_token(tok, sizeof tok))
            die(2, "expected the NDRange and work-group size in", sim);
        (i < 3 ? global : local)[i % 3] = (size_t)parse_num(tok);
    }

    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    cl_check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    cl_check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_check(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_check(err, "clCreateCommandQueue");

    const char *src = read_file(progfile, NULL);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    cl_check(err, "clCreateProgramWithSource");
    if (clBuildProgram(prog, 1, &device, "-cl-kernel-arg-info", NULL, NULL) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "%s\n", log);
        die(2, "build failed", progfile);
    }
    cl_kernel kernel = clCreateKernel(prog, kname, &err);
    cl_check(err, "clCreateKernel");
    cl_uint nargs;
    cl_check(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL),
             "clGetKernelInfo");
    if (nargs > MAX_ARGS)
        die(2, "too many kernel arguments", NULL);

    Arg args[MAX_ARGS];
    memset(args, 0, sizeof args);
    for (cl_uint i = 0; i < nargs; i++) {
        Arg *a = &args[i];
        parse_arg(a, kernel, i);
        if (a->qual == CL_KERNEL_ARG_ADDRESS_LOCAL) {
            cl_check(clSetKernelArg(kernel, i, a->size, NULL), "clSetKernelArg");
        } else if (a->qual == CL_KERNEL_ARG_ADDRESS_PRIVATE) {
            cl_check(clSetKernelArg(kernel, i, a->size, a->data), "clSetKernelArg");
        } else {
            a->mem = clCreateBuffer(ctx, CL_MEM_READ_WRITE, a->size, NULL, &err);
            cl_check(err, "clCreateBuffer");
            cl_check(clSetKernelArg(kernel, i, sizeof a->mem, &a->mem), "clSetKernelArg");
        }
    }
    if (next_token(tok, sizeof tok))
        die(2, "unexpected text after the last argument", tok);

    double *ms = malloc(sizeof(double) * (size_t)reps);
    for (int r = -1; r < reps; r++) {          // r = -1: warm-up
        for (cl_uint i = 0; i < nargs; i++)
            if (args[i].mem)
                cl_check(clEnqueueWriteBuffer(q, args[i].mem, CL_TRUE, 0, args[i].size,
                                              args[i].data, 0, NULL, NULL),
                         "clEnqueueWriteBuffer");
        cl_check(clFinish(q), "clFinish");
        double t0 = now_ms();
        cl_check(clEnqueueNDRangeKernel(q, kernel, 3, NULL, global, local, 0, NULL, NULL),
                 "clEnqueueNDRangeKernel");
        cl_check(clFinish(q), "clFinish");
        if (r >= 0)
            ms[r] = now_ms() - t0;
    }
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    printf("kernel_ms %.6f\n", reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2);

    for (cl_uint i = 0; i < nargs; i++) {
        Arg *a = &args[i];
        if (!a->dump || !a->mem)
            continue;
        unsigned char *buf = malloc(a->size ? a->size : 1);
        cl_check(clEnqueueReadBuffer(q, a->mem, CL_TRUE, 0, a->size, buf, 0, NULL, NULL),
                 "clEnqueueReadBuffer");
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.bin", outdir, a->name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, a->size, f) != a->size || fclose(f))
            die(2, path, "cannot write");
        free(buf);
    }
    return 0;
}
