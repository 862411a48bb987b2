/*
 * ffi.c — the ffi answerer: a function of an existing shared library
 * decides (DESIGN §3, §8), so that a policy already written as a C
 * library needs no wrapper program.
 *
 * The function's signature is declared in the config and must be one of a
 * small, fixed set: it takes 0 to 6 arguments, each a `const char *` that
 * is one field of the request, and returns `int`.  libffi makes the call
 * for whichever arity the config names.  The int is mapped through `map`;
 * a value the map does not name makes the request unavailable.
 *
 * The call runs in the process that decides (the host, or its worker under
 * `isolation = process`): a function that crashes or hangs takes that
 * process with it, so a library not trusted to behave belongs under
 * process isolation with a timeout.
 *
 * Config keys ([answerer NAME] with plugin = ffi), each required, each
 * given once except map:
 *   library  the shared object: an absolute path, or one relative to the
 *            config file's directory (never searched in the library path).
 *            It must be a regular file that neither group nor others may
 *            write.
 *   symbol   the function's name, a C identifier.
 *   args     the request fields passed, in order, whitespace-separated:
 *            session request_id tool subject call_id reason mode cwd,
 *            and the command a request describes (plugin.h, v1.1):
 *            argv (its words shell-quoted, joined by spaces), program,
 *            interpreter, program_writable ("yes" or "no"), env_removed
 *            (names joined by spaces), path_dropped (entries joined by
 *            ':'), path, and (v1.4) env_config (the NAME=value entries
 *            where the command's tools look for configuration, each
 *            shell-quoted, joined by spaces) (at most 6; absent optional
 *            fields are "", never NULL).  `args =` with nothing calls the function with no
 *            argument.
 *   returns  int (the only return type).
 *   map      VALUE:OUTCOME entries, whitespace-separated, e.g.
 *            `0:allowed-once 1:rejected 2:next`; OUTCOME is allowed-once,
 *            rejected, cancelled or next; VALUE a decimal int, each named
 *            once.  Repeatable: the entries of every line count.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ffi.h>
#include <warden/plugin.h>

#include "words.h"

#define FFI_MAX_ARGS 6
#define FFI_MAX_MAP 64

enum field {
	F_SESSION, F_REQUEST_ID, F_TOOL, F_SUBJECT, F_CALL_ID, F_REASON,
	F_MODE, F_CWD, F_ARGV, F_PROGRAM, F_INTERPRETER, F_PROGRAM_WRITABLE,
	F_ENV_REMOVED, F_PATH_DROPPED, F_PATH, F_NETWORK, F_ENV_CONFIG,
};

static const char *const field_names[] = {
	"session", "request_id", "tool", "subject", "call_id", "reason",
	"mode", "cwd", "argv", "program", "interpreter", "program_writable",
	"env_removed", "path_dropped", "path", "network", "env_config",
};
#define N_FIELDS (sizeof(field_names) / sizeof(field_names[0]))

static const struct {
	const char *word;
	int decision;
} outcomes[] = {
	{ "allowed-once", WARDEN_DECISION_ALLOWED_ONCE },
	{ "rejected", WARDEN_DECISION_REJECTED },
	{ "cancelled", WARDEN_DECISION_CANCELLED },
	{ "next", WARDEN_DECISION_DELEGATE },
};

struct ffi_answerer {
	void *handle;
	void *fn;
	char library[PATH_MAX];
	char symbol[128];
	int have_library, have_symbol, have_args, have_returns;
	int args[FFI_MAX_ARGS];         /* enum field */
	unsigned n_args;
	struct {
		int value;
		int decision;
	} map[FFI_MAX_MAP];
	size_t n_map;
	ffi_type *types[FFI_MAX_ARGS];
	ffi_cif cif;
};

static void ffi_answerer_close(void *state)
{
	struct ffi_answerer *f = state;

	if (f == NULL)
		return;
	if (f->handle != NULL)
		dlclose(f->handle);
	free(f);
}

static int once(int *seen, const struct warden_kv *kv, char *err,
                size_t errlen)
{
	if (*seen) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: %s: given twice",
		                  kv->line, kv->key);
		return -1;
	}
	*seen = 1;
	return 0;
}

static int set_library(struct ffi_answerer *f,
                       const struct warden_open_args *args,
                       const struct warden_kv *kv, char *err, size_t errlen)
{
	struct stat st;
	int n;

	if (kv->value[0] == '\0') {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: library: empty (name "
		                  "the shared object, e.g. /usr/lib/libpolicy.so)",
		                  kv->line);
		return -1;
	}
	if (kv->value[0] == '/')
		n = snprintf(f->library, sizeof(f->library), "%s", kv->value);
	else
		n = snprintf(f->library, sizeof(f->library), "%s/%s",
		             args->config_dir, kv->value);
	if (n < 0 || (size_t)n >= sizeof(f->library)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: library: path too long",
		                  kv->line);
		return -1;
	}
	if (stat(f->library, &st) < 0) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: library: %s: %s (give "
		                  "an absolute path, or one relative to the config "
		                  "file's directory)", kv->line, f->library,
		                  strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: library: %s is not a "
		                  "regular file", kv->line, f->library);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: library: %s is writable "
		                  "by group or others (chmod go-w it)", kv->line,
		                  f->library);
		return -1;
	}
	return 0;
}

static int set_symbol(struct ffi_answerer *f, const struct warden_kv *kv,
                      char *err, size_t errlen)
{
	const char *s = kv->value;
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (i > 0 && s[i] >= '0' && s[i] <= '9')))
			break;
	if (n == 0 || i < n || n >= sizeof(f->symbol)) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: symbol = %s: allowed: "
		                  "the function's name, a C identifier", kv->line,
		                  s);
		return -1;
	}
	memcpy(f->symbol, s, n + 1);
	return 0;
}

/* The next whitespace-separated word of *p, copied into buf; 0 at the
 * end, -1 when it does not fit. */
static int next_word(const char **p, char *buf, size_t size)
{
	const char *s = *p, *start;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return 0;
	start = s;
	while (*s != '\0' && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	n = (size_t)(s - start);
	if (n >= size)
		return -1;
	memcpy(buf, start, n);
	buf[n] = '\0';
	return 1;
}

static int set_args(struct ffi_answerer *f, const struct warden_kv *kv,
                    char *err, size_t errlen)
{
	const char *p = kv->value;
	char word[32];
	size_t i;
	int rc;

	while ((rc = next_word(&p, word, sizeof(word))) != 0) {
		for (i = 0; rc > 0 && i < N_FIELDS; i++)
			if (strcmp(word, field_names[i]) == 0)
				break;
		if (rc < 0 || i == N_FIELDS) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: args: '%s' is not "
			                  "a request field (allowed: session "
			                  "request_id tool subject call_id reason "
			                  "mode cwd argv program interpreter "
			                  "program_writable env_removed path_dropped "
			                  "path network env_config)", kv->line,
			                  rc < 0 ? "(overlong word)" : word);
			return -1;
		}
		if (f->n_args == FFI_MAX_ARGS) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: args: more than %d "
			                  "arguments (the supported signatures take "
			                  "0 to %d const char *)", kv->line,
			                  FFI_MAX_ARGS, FFI_MAX_ARGS);
			return -1;
		}
		f->args[f->n_args++] = (int)i;
	}
	return 0;
}

static int parse_int(const char *s, size_t n, int *out)
{
	char buf[16], *end;
	long v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno != 0 || *end != '\0' || end == buf || v < INT_MIN ||
	    v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

static int add_map(struct ffi_answerer *f, const struct warden_kv *kv,
                   char *err, size_t errlen)
{
	const char *p = kv->value, *colon;
	char word[64];
	size_t i;
	int rc, value, any = 0;

	while ((rc = next_word(&p, word, sizeof(word))) != 0) {
		any = 1;
		colon = rc > 0 ? strchr(word, ':') : NULL;
		if (colon == NULL ||
		    parse_int(word, (size_t)(colon - word), &value) < 0)
			goto bad;
		for (i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
			if (strcmp(colon + 1, outcomes[i].word) == 0)
				break;
		if (i == sizeof(outcomes) / sizeof(outcomes[0]))
			goto bad;
		if (f->n_map == FFI_MAX_MAP) {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: map: more than %d "
			                  "entries", kv->line, FFI_MAX_MAP);
			return -1;
		}
		for (size_t j = 0; j < f->n_map; j++)
			if (f->map[j].value == value) {
				WARDEN_PLUGIN_ERR(err, errlen, "line %u: map: value %d "
				                  "is mapped twice", kv->line, value);
				return -1;
			}
		f->map[f->n_map].value = value;
		f->map[f->n_map++].decision = outcomes[i].decision;
	}
	if (!any) {
		WARDEN_PLUGIN_ERR(err, errlen, "line %u: map: empty (write "
		                  "VALUE:OUTCOME entries, e.g. 0:allowed-once "
		                  "1:rejected 2:next)", kv->line);
		return -1;
	}
	return 0;
bad:
	WARDEN_PLUGIN_ERR(err, errlen, "line %u: map: '%s' is not VALUE:OUTCOME "
	                  "(VALUE a decimal int; OUTCOME allowed-once, rejected, "
	                  "cancelled or next)", kv->line,
	                  rc < 0 ? "(overlong entry)" : word);
	return -1;
}

static int parse_keys(struct ffi_answerer *f,
                      const struct warden_open_args *args, char *err,
                      size_t errlen)
{
	int have_map = 0;
	size_t i;

	for (i = 0; i < args->kv_count; i++) {
		const struct warden_kv *kv = &args->kv[i];
		int rc;

		if (strcmp(kv->key, "library") == 0)
			rc = once(&f->have_library, kv, err, errlen) < 0 ? -1
			     : set_library(f, args, kv, err, errlen);
		else if (strcmp(kv->key, "symbol") == 0)
			rc = once(&f->have_symbol, kv, err, errlen) < 0 ? -1
			     : set_symbol(f, kv, err, errlen);
		else if (strcmp(kv->key, "args") == 0)
			rc = once(&f->have_args, kv, err, errlen) < 0 ? -1
			     : set_args(f, kv, err, errlen);
		else if (strcmp(kv->key, "returns") == 0) {
			rc = once(&f->have_returns, kv, err, errlen);
			if (rc == 0 && strcmp(kv->value, "int") != 0) {
				WARDEN_PLUGIN_ERR(err, errlen, "line %u: returns = %s: "
				                  "allowed: int (the only supported "
				                  "return type)", kv->line, kv->value);
				rc = -1;
			}
		} else if (strcmp(kv->key, "map") == 0) {
			have_map = 1;
			rc = add_map(f, kv, err, errlen);
		} else {
			WARDEN_PLUGIN_ERR(err, errlen, "line %u: unknown key '%s' "
			                  "(ffi knows: library, symbol, args, "
			                  "returns, map)", kv->line, kv->key);
			rc = -1;
		}
		if (rc < 0)
			return -1;
	}
	if (!f->have_library || !f->have_symbol || !f->have_args ||
	    !f->have_returns || !have_map) {
		WARDEN_PLUGIN_ERR(err, errlen, "[answerer %s]: missing key '%s' "
		                  "(ffi needs library, symbol, args, returns and "
		                  "map)", args->instance,
		                  !f->have_library ? "library"
		                  : !f->have_symbol ? "symbol"
		                  : !f->have_args ? "args"
		                  : !f->have_returns ? "returns" : "map");
		return -1;
	}
	return 0;
}

static void *ffi_answerer_open(const struct warden_open_args *args,
                               char *err, size_t errlen)
{
	struct ffi_answerer *f = calloc(1, sizeof(*f));
	const char *dlerr;
	unsigned i;

	if (f == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_keys(f, args, err, errlen) < 0)
		goto fail;
	f->handle = dlopen(f->library, RTLD_NOW | RTLD_LOCAL);
	if (f->handle == NULL) {
		dlerr = dlerror();
		WARDEN_PLUGIN_ERR(err, errlen, "library: cannot load %s: %s",
		                  f->library, dlerr != NULL ? dlerr : "unknown");
		goto fail;
	}
	(void)dlerror();
	f->fn = dlsym(f->handle, f->symbol);
	if (f->fn == NULL) {
		WARDEN_PLUGIN_ERR(err, errlen, "symbol: %s is not defined in %s",
		                  f->symbol, f->library);
		goto fail;
	}
	for (i = 0; i < f->n_args; i++)
		f->types[i] = &ffi_type_pointer;
	if (ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, f->n_args, &ffi_type_sint,
	                 f->types) != FFI_OK) {
		WARDEN_PLUGIN_ERR(err, errlen, "libffi cannot prepare a call of "
		                  "int %s(%u x const char *)", f->symbol,
		                  f->n_args);
		goto fail;
	}
	return f;
fail:
	ffi_answerer_close(f);
	return NULL;
}

#define HAS(req, f) WARDEN_REQUEST_HAS(req, f)

/*
 * The value of a field; the lists are joined into a new string kept in
 * *joined (the caller frees it).  NULL when out of memory.
 */
static const char *field(const struct warden_request *req, int which,
                         char **joined)
{
	const char *v;

	*joined = NULL;
	switch (which) {
	case F_ARGV:
		return *joined = words_join(HAS(req, argc) ? req->argv : NULL,
		                            HAS(req, argc) && req->argv != NULL
		                            ? req->argc : 0, " ", 1);
	case F_ENV_REMOVED:
		return *joined = words_join(HAS(req, n_env_removed) ? req->env_removed : NULL,
		                            HAS(req, n_env_removed) && req->env_removed != NULL
		                            ? req->n_env_removed : 0, " ", 0);
	case F_PATH_DROPPED:
		return *joined = words_join(HAS(req, n_path_dropped) ? req->path_dropped : NULL,
		                            HAS(req, n_path_dropped) && req->path_dropped != NULL
		                            ? req->n_path_dropped : 0, ":", 0);
	case F_ENV_CONFIG:
		return *joined = words_join(HAS(req, n_env_config) ? req->env_config : NULL,
		                            HAS(req, n_env_config) && req->env_config != NULL
		                            ? req->n_env_config : 0, " ", 1);
	case F_PROGRAM_WRITABLE:
		return HAS(req, program_writable) && req->program_writable ? "yes" : "no";
	case F_PROGRAM: v = HAS(req, program) ? req->program : ""; break;
	case F_INTERPRETER: v = HAS(req, interpreter) ? req->interpreter : ""; break;
	case F_PATH: v = HAS(req, path) ? req->path : ""; break;
	case F_NETWORK:
		v = HAS(req, requested_network) ? req->requested_network : "";
		break;
	case F_SESSION: v = req->session_id; break;
	case F_REQUEST_ID: v = req->request_id; break;
	case F_TOOL: v = req->tool; break;
	case F_SUBJECT: v = req->subject; break;
	case F_CALL_ID: v = req->call_id; break;
	case F_REASON: v = req->reason; break;
	case F_MODE: v = req->requested_mode; break;
	default: v = req->cwd; break;
	}
	return v != NULL ? v : "";
}

static int ffi_answerer_decide(void *state, const struct warden_request *req,
                               char *err, size_t errlen)
{
	struct ffi_answerer *f = state;
	const char *values[FFI_MAX_ARGS];
	char *joined[FFI_MAX_ARGS];
	void *avalues[FFI_MAX_ARGS];
	ffi_arg rc = 0;
	size_t i;
	int got, oom = 0;

	for (i = 0; i < f->n_args; i++) {
		values[i] = field(req, f->args[i], &joined[i]);
		oom = oom || values[i] == NULL;
		avalues[i] = &values[i];
	}
	if (!oom)
		ffi_call(&f->cif, FFI_FN(f->fn), &rc, f->n_args > 0 ? avalues : NULL);
	for (i = 0; i < f->n_args; i++)
		free(joined[i]);
	if (oom) {
		WARDEN_PLUGIN_ERR(err, errlen, "out of memory");
		return WARDEN_DECISION_ERROR;
	}
	got = (int)(ffi_sarg)rc;
	for (i = 0; i < f->n_map; i++)
		if (f->map[i].value == got)
			return f->map[i].decision;
	WARDEN_PLUGIN_ERR(err, errlen, "%s returned %d, which map does not "
	                  "name", f->symbol, got);
	return WARDEN_DECISION_ERROR;
}

WARDEN_PLUGIN_EXPORT const struct warden_plugin warden_plugin = {
	WARDEN_PLUGIN_HEADER_INIT(WARDEN_PLUGIN_ANSWERER),
	.name = "ffi",
	.version = PACKAGE_VERSION,
	.description = "calls a function of a shared library declared in the config",
	.open = ffi_answerer_open,
	.close = ffi_answerer_close,
	.decide = ffi_answerer_decide,
};
