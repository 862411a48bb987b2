/*
 * cli.h — what every `warden` subcommand receives.
 *
 * Each subcommand lives in its own host/cli_*.c, parses its own options
 * (getopt_long on the argv it is given, argv[0] being its name), and
 * returns the process exit status (a enum warden_status, or for `run` the
 * command's own status).  Errors are printed as one line
 * "warden: ..." on stderr through warden_cli_fail().
 */
#ifndef WARDEN_CLI_H
#define WARDEN_CLI_H

#include "error.h"

struct warden_cli {
	const char *config_path;  /* --config, or NULL */
	const char *session_id;   /* --session, else $WARDEN_SESSION, or NULL */
};

typedef int (*warden_cmd_fn)(struct warden_cli *cli, int argc, char **argv);

struct warden_command {
	const char *name;         /* "plugins", "config", ... */
	warden_cmd_fn fn;
	const char *synopsis;     /* one line for --help */
};

/* The subcommands, one host/cli_*.c each. */
int warden_cmd_plugins(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_config(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_session(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_mode(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_policy(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_network(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_roots(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_grant(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_preset(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_approve(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_confine(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_run(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_mcp(struct warden_cli *cli, int argc, char **argv);
int warden_cmd_serve(struct warden_cli *cli, int argc, char **argv);

/* A jansson string for text that may not be UTF-8 (a config value, a
 * plugin's reason): bytes that would make it invalid become '?'. */
struct json_t;
struct json_t *warden_cli_json_string(const char *s);

/*
 * Prints o (consumed; NULL is an error) as indented JSON and a newline,
 * all or nothing: jansson drops a key or an element silently when an
 * allocation fails, so any failed jansson allocation in this process
 * (warden_cli_json_failed) makes the output an error, never partial or
 * wrong JSON.  Returns 0, or -code with err set.
 */
int warden_cli_print_json(struct json_t *o, struct warden_error *err);
/* Has any jansson allocation failed in this process? */
int warden_cli_json_failed(void);
/* Installs the allocation hooks behind warden_cli_json_failed(); main()
 * calls it before anything uses jansson. */
void warden_cli_json_init(void);

/* Prints "warden: MSG" to stderr and returns err->code (the exit status). */
int warden_cli_fail(const struct warden_error *err);

/* Prints an operation's error (ops.h), "warden: WHAT: MSG" when it names
 * an argument, and returns its code (the exit status). */
struct warden_op;
int warden_cli_op_fail(const struct warden_op *op, const char *what);

/* Prints "warden: MSG" for a usage error and returns WARDEN_EUSAGE. */
int warden_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
