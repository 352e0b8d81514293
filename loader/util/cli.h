/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/cli.h - one way to parse a subcommand's options: glibc's argp, with
 * help from the option table, errors as one line, and no exit() inside.
 */
#ifndef FB_CLI_H
#define FB_CLI_H

struct argp;

/*
 * Parses argv (argv[0] = the subcommand's name) with a, input as argp's
 * input.  --help/-h/-? before any "--" prints the help from the table,
 * --usage the short usage.  idx
 * (may be NULL) gets the index of the first argument argp did not take.
 * Returns 0 to go on, 1 after printing help (exit 0), 2 after an error was
 * printed (exit 2).
 */
int fb_argp_parse(const struct argp *a, int argc, char **argv, int *idx, void *input);

/*
 * fb_argp_parse() with a second table beside a, with its own input: the
 * options several commands share (the guest options of vm and ab, the
 * comparison options of compare, report and gate).  Help prints a's usage
 * and text, and both tables.  An operand no parser takes is refused as
 * "unexpected argument" unless idx is given.
 */
int fb_argp_parse_shared(const struct argp *a, void *input, const struct argp *shared,
			 void *shared_input, int argc, char **argv, int *idx);

/*
 * For parsers: an unsigned integer in [min, max], or -1 after one error
 * line naming the option and the range.
 */
int fb_opt_uint(const char *cmd, const char *opt, const char *arg, unsigned long long min,
		unsigned long long max, unsigned long long *out);

/*
 * For a parser that hands its keys to an option function: that function's
 * 0 (taken), -1 (refused, the error line printed) or 1 (not its key) as
 * argp wants them: 0, EINVAL or ARGP_ERR_UNKNOWN.
 */
int fb_argp_ret(int r);

/*
 * The other way: "OPT", vals[0], "OPT", vals[1], ... appended at argv
 * (room for 2 * n), for a command line handed on.  Returns 2 * n.
 */
int fb_argv_opts(const char **argv, const char *opt, const char *const *vals, int n);

/* Option value in [lo, hi]: 0, or -1 if not a number or out of range. */
int fb_parse_double_arg(const char *s, double lo, double hi, double *out);

/* Replaces control characters (from names in files) so a message stays one line. */
void fb_one_line(char *s);

#endif /* FB_CLI_H */
