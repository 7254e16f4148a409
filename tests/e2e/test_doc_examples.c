/*
 * test_doc_examples.c — the command examples in README.md and the docs/ pages print what
 * lockstep prints. An example is a line `$ lockstep ARGS` (or `$ build/lockstep ARGS`) in an
 * indented or fenced block, followed by the output it shows, at the same indentation, up to
 * a blank line or the end of the block. The command runs from the repository root; each
 * shown line must be the next line of the real output, except `...`, which stands for any
 * number of lines (at the end: for the rest); a command shown with no output must exit 0.
 * So a newcomer who types an example sees what the page shows, and a change to lockstep's
 * output fails here until the docs follow it.
 */
#include "test_util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>

#include "../../util/util.h"

enum { MAX_LINES = 256 };

typedef struct Example {
    char args[512];
    char *shown[MAX_LINES];
    int num_shown;
    int line;                /* of the `$` line, for messages */
} Example;

/* Splits text into lines in place (the newlines become NULs); returns how many. */
static int split_lines(char *text, char **lines, int max)
{
    int n = 0;
    for (char *p = text; *p && n < max;) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* Whether `shown` and the real output agree (see the file comment); on a mismatch, says
 * where in *why. */
static bool matches(char **shown, int num_shown, char **real, int num_real, char *why,
                    size_t why_size)
{
    int j = 0;
    for (int i = 0; i < num_shown; i++) {
        if (strcmp(shown[i], "...") == 0) {
            if (i + 1 == num_shown)
                return true;
            while (j < num_real && strcmp(real[j], shown[i + 1]) != 0)
                j++;
            if (j == num_real) {
                snprintf(why, why_size, "no output line after `...` reads:\n  %s", shown[i + 1]);
                return false;
            }
            continue;
        }
        if (j >= num_real || strcmp(shown[i], real[j]) != 0) {
            snprintf(why, why_size, "shown line %d:\n  %s\nbut lockstep printed:\n  %s", i + 1,
                     shown[i], j < num_real ? real[j] : "(nothing more)");
            return false;
        }
        j++;
    }
    if (j != num_real) {
        snprintf(why, why_size, "lockstep printed more than is shown, from:\n  %s", real[j]);
        return false;
    }
    return true;
}

static int checked;

static void check_example(const char *doc, const Example *e)
{
    char *output = NULL;
    const int status = test_lockstep(e->args, &output);
    if (e->num_shown == 0) { /* a command shown alone: it must run, and succeed */
        if (status != 0)
            fail_msg("%s:%d: `lockstep %s` exited %d:\n%s", doc, e->line, e->args, status, output);
        free(output);
        checked++;
        return;
    }
    char *real[MAX_LINES * 2];
    int num_real = split_lines(output, real, MAX_LINES * 2);
    if (num_real && real[num_real - 1][0] == '\0')
        num_real--; /* the final newline */
    char why[2048];
    if (!matches((char **)e->shown, e->num_shown, real, num_real, why, sizeof why))
        fail_msg("%s:%d: `lockstep %s` does not print what the example shows: %s", doc, e->line,
                 e->args, why);
    free(output);
    checked++;
}

/* Finds and checks every example in one Markdown file. */
static void check_doc(const char *path)
{
    UtilError err;
    size_t size;
    char *text = util_read_file(path, &size, &err);
    if (!text)
        fail_msg("%s: %s", path, err.message);
    char **lines = calloc(size + 1, sizeof *lines);
    int n = split_lines(text, lines, (int)size + 1);
    for (int i = 0; i < n; i++) {
        const char *l = lines[i];
        size_t indent = 0;
        while (l[indent] == ' ')
            indent++;
        const char *cmd = l + indent;
        if (strncmp(cmd, "$ ", 2) != 0)
            continue;
        cmd += 2;
        if (strncmp(cmd, "build/", 6) == 0)
            cmd += 6;
        if (strncmp(cmd, "lockstep ", 9) != 0)
            continue;
        Example e = {.line = i + 1};
        snprintf(e.args, sizeof e.args, "%s", cmd + 9);
        for (int k = i + 1; k < n && e.num_shown < MAX_LINES; k++) {
            const char *s = lines[k];
            size_t d = 0;
            while (d < indent && s[d] == ' ')
                d++;
            bool blank = true;
            for (const char *p = s; *p; p++)
                blank &= isspace((unsigned char)*p) != 0;
            if (blank || d < indent || strncmp(s + d, "```", 3) == 0)
                break;
            e.shown[e.num_shown++] = lines[k] + indent;
        }
        check_example(path, &e);
    }
    free(lines);
    free(text);
}

static void test_examples(void **state)
{
    (void)state;
    check_doc("README.md");
    DIR *dir = opendir("docs");
    assert_non_null(dir);
    char *names[64];
    int count = 0;
    for (struct dirent *d; (d = readdir(dir)) && count < 64;) {
        size_t len = strlen(d->d_name);
        if (len > 3 && strcmp(d->d_name + len - 3, ".md") == 0)
            names[count++] = strdup(d->d_name);
    }
    closedir(dir);
    for (int i = 0; i < count; i++) {
        char path[512];
        snprintf(path, sizeof path, "docs/%s", names[i]);
        check_doc(path);
        free(names[i]);
    }
    /* README.md, checks.md, manifest.md and timing.md hold five between them */
    assert_true(checked >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
