/*
 * main.c — the `lockstep` command: picks the subcommand and hands over. Commands are one
 * table (name, handler, one-line help), so `lockstep --help` lists exactly what exists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"
#include "ui.h"

static int cmd_isa(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *args;
    const char *help;
} commands[] = {
    {"run", ui_cmd_run, "LAUNCH.yaml", "run the dispatch a launch manifest describes"},
    {"check", ui_cmd_check, "LAUNCH.yaml", "run a launch with every bug finder on: races, barriers, ..."},
    {"debug", ui_cmd_debug, "LAUNCH.yaml", "step through a launch in the terminal: lanes, values, lines"},
    {"trace", ui_cmd_trace, "LAUNCH.yaml -o F", "record every issue (cycle, core, lanes); trace show|export|profile F"},
    {"compile", ui_cmd_compile, "KERNEL.metal", "compile a Metal kernel; print annotated assembly"},
    {"gpus", ui_cmd_gpus, "", "list the GPU configs (--gpu NAME) with cores, clock and peaks"},
    {"isa", cmd_isa, "", "print the ISA reference (docs/ISA.md) in Markdown"},
    {"help", cmd_help, "[COMMAND]", "show help for lockstep or one command"},
};

static void usage(FILE *out)
{
    fputs("usage: lockstep COMMAND [ARGS...]\n"
          "\n"
          "lockstep simulates Apple-style GPU cores running compute kernels.\n"
          "\n"
          "commands:\n", out);
    for (size_t i = 0; i < UTIL_ARRAY_LEN(commands); i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].args);
        fprintf(out, "  %-20s %s\n", head, commands[i].help);
    }
    fputs("\n"
          "options:\n"
          "  -h, --help           show this help (`lockstep COMMAND --help` for a command's)\n"
          "  --version            print the version\n"
          "\n"
          "exit status: 0 success; 1 a finding (an expectation not met, a kernel fault, an\n"
          "error found by `lockstep check`);\n"
          "2 bad input (usage, manifest, kernel or data files)\n", out);
}

static int cmd_isa(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: lockstep isa\n\nPrints the ISA reference, generated from the "
               "instruction table, as Markdown (`make docs` writes it to docs/ISA.md).\n");
        return UI_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "lockstep isa: error: unexpected argument '%s'\nusage: lockstep isa\n",
                argv[1]);
        return UI_EXIT_BAD_INPUT;
    }
    char *md = isa_docs_markdown();
    fputs(md, stdout);
    free(md);
    return UI_EXIT_OK;
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return UI_EXIT_OK;
    }
    for (size_t i = 0; i < UTIL_ARRAY_LEN(commands); i++) {
        if (strcmp(argv[1], commands[i].name) == 0 && commands[i].run != cmd_help) {
            char *args[] = {argv[1], "--help", NULL};
            return commands[i].run(2, args);
        }
    }
    fprintf(stderr, "lockstep: error: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return UI_EXIT_BAD_INPUT;
}

/* Output that did not reach standard output (a full disk, say) is lost: status 2, as for a
 * dump file that cannot be written, never success. */
static int finish(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "lockstep: error: cannot write standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return UI_EXIT_BAD_INPUT;
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return UI_EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return finish(UI_EXIT_OK);
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("lockstep %s\n", UI_VERSION);
        return finish(UI_EXIT_OK);
    }
    for (size_t i = 0; i < UTIL_ARRAY_LEN(commands); i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return finish(commands[i].run(argc - 1, argv + 1));
    if (cmd[0] == '-')
        fprintf(stderr, "lockstep: error: unknown option '%s'\n", cmd);
    else
        fprintf(stderr, "lockstep: error: unknown command '%s'\n", cmd);
    usage(stderr);
    return UI_EXIT_BAD_INPUT;
}
