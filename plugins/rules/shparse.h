/*
 * shparse.h — the simple commands of a shell command string, for rules
 * that decide by command rather than by string (ruleset.h).
 *
 * It reads the part of bash's language that a command line of an agent
 * uses: words with every kind of quoting ('', "", $'', backslash), the
 * operators | |& && || ; & and newlines, subshells ( ), brace groups
 * { }, redirections (fd forms, >|, &>, <<<, here-documents with <<, <<-
 * and quoted delimiters), parameter expansion, command substitution $( )
 * and ` `, and process substitution <( ) >( ).  The commands inside a
 * substitution, and inside `bash -c STRING` / `sh -c STRING`, are simple
 * commands too.
 *
 * What it does not fully understand it does not guess at: the result is
 * "not understood", with the reason and where.  That covers a variable,
 * substitution or glob in command position; an assignment before or as a
 * command (`PATH=/tmp/x git`, `x=1`); eval, exec, source and the other
 * builtins that change how later commands are found or run (alias, trap,
 * hash, enable, builtin, command, export, declare, read, set, shopt,
 * printf -v, ...); function definitions; if, case, for, while, until,
 * select, [[ ]], (( )), $(( )) and every other arithmetic; ${x:=..},
 * ${!x}, ${x:N} and other parameter forms that assign or evaluate;
 * a shell started with options other than a lone -c; unbalanced quotes
 * or brackets and any other syntax error; $'' and $"" when the shell is
 * not known to be bash.  Input longer than WARDEN_SH_MAX_INPUT, nesting
 * deeper than WARDEN_SH_MAX_DEPTH or more than WARDEN_SH_MAX_COMMANDS
 * commands are not understood either.
 *
 * The commands found before the parser stopped are kept: a denied
 * command among them is still denied.
 */
#ifndef WARDEN_SHPARSE_H
#define WARDEN_SHPARSE_H

#include <stddef.h>

#define WARDEN_SH_MAX_INPUT (256 * 1024)
#define WARDEN_SH_MAX_DEPTH 32
#define WARDEN_SH_MAX_COMMANDS 1024

/* The shell that will read the string. */
enum warden_sh_dialect {
	WARDEN_SH_UNKNOWN = 0,  /* not known: only what bash and POSIX sh
	                           read alike */
	WARDEN_SH_BASH = 1,
	WARDEN_SH_POSIX = 2,    /* sh, dash */
};

/* One word of a command after quote removal.  literal 0: its value is
 * not known before the shell runs (it holds an expansion, a glob or a
 * substitution); text is then what the word reads as written, for
 * messages only, and an unquoted one may become any number of words. */
struct warden_sh_word {
	char *text;
	int literal;
};

struct warden_sh_command {
	struct warden_sh_word *w;
	size_t n;                /* 0: a command of redirections alone */
	/* 1: a shell running a -c string whose commands are listed on their
	 * own: it decides nothing by itself but may be denied or asked. */
	int shell;
};

struct warden_sh_parse {
	struct warden_sh_command *cmd;
	size_t n;
	int understood;          /* 1: every command is listed */
	char why[160];           /* understood 0: what was not understood */
	size_t at;               /* and its byte offset in the string */
	/* The output redirections to a file (> >> >| <> &> &>> >&FILE): a
	 * write the command line itself makes.  /dev/null, /dev/stdout,
	 * /dev/stderr and descriptor duplications do not count. */
	size_t n_writes;
	char write[160];         /* the first one's target, as written */
};

/* Parses a shell command string.  Returns 0 (out is filled, understood
 * or not; free it with warden_sh_parse_free) or -1 when out of memory. */
int warden_sh_parse_string(const char *s, int dialect,
                           struct warden_sh_parse *out);

/* The simple commands of an argv as it will be executed: one command of
 * literal words, or, for SHELL -c STRING [ARGS...] with SHELL bash, sh
 * or dash (any directory), the commands of STRING. */
int warden_sh_parse_argv(const char *const *argv, size_t argc,
                         struct warden_sh_parse *out);

void warden_sh_parse_free(struct warden_sh_parse *p);

/* The words of a rule (`git status`, `'my tool' run`): shell words whose
 * value is fixed, quotes removed, nothing else (no operator, expansion,
 * glob, redirection or comment).  Returns the number of words (>= 1),
 * stored in *words (free with warden_sh_words_free), 0 with why filled
 * when s is not such a list, -1 when out of memory. */
int warden_sh_split_words(const char *s, char ***words, char *why,
                          size_t whylen);
void warden_sh_words_free(char **words, size_t n);

/* The dialect of a program name (any directory): bash, sh or dash, or
 * -1 when it names no shell warden_sh_parse_* reads. */
int warden_sh_dialect_of(const char *program);

#endif
