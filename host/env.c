/* env.c — see env.h. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* Names that hold credentials by convention.  Broad on purpose: a command
 * that needs one gets it from a config that says so (scrub_env). */
const char *const warden_env_scrub_default[] = {
	"*TOKEN*",
	"*SECRET*",
	"*PASSWORD*",
	"*PASSWD*",
	"*PASSPHRASE*",
	"*CREDENTIAL*",
	"*API_KEY*",
	"*APIKEY*",
	"*ACCESS_KEY*",
	"*PRIVATE_KEY*",
	"*_KEY",
	"*_PAT",
	"AWS_*",
	"SSH_AUTH_SOCK",
	"GPG_AGENT_INFO",
	NULL,
};

/* glibc's loader and libc knobs that load code or data chosen by the
 * environment (the set glibc itself ignores for setuid programs, minus
 * the ones that only steer name resolution and time zones). */
const char *const warden_env_loader_names[] = {
	"LD_*",
	"GCONV_PATH",
	"GETCONF_DIR",
	"GLIBC_TUNABLES",
	"LOCPATH",
	"MALLOC_TRACE",
	"NLSPATH",
	NULL,
};

/* What makes a program's start-up run code or read files the command
 * line does not show: the shells' start-up files and imported functions
 * and options (bash, dash, ksh, zsh read ENV or BASH_ENV; SHELLOPTS with
 * xtrace expands PS4), the language runtimes' preloads and module paths
 * (a sitecustomize.py, a -M module, a --require, a -javaagent), and what
 * the common tools take from the environment to run a program of its
 * choosing: git's configuration (GIT_CONFIG_COUNT with _KEY_n/_VALUE_n
 * sets core.fsmonitor, core.pager, a hook path...), its repository and
 * helpers, the pager and editor, make's extra makefiles, cargo's and
 * rustc's wrappers and runners, npm's configuration. */
const char *const warden_env_startup_names[] = {
	"BASH_ENV",
	"ENV",
	"BASH_FUNC_*",
	"SHELLOPTS",
	"BASHOPTS",
	"PS4",
	"PROMPT_COMMAND",
	"PYTHONSTARTUP",
	"PYTHONPATH",
	"PYTHONHOME",
	"PYTHONUSERBASE",
	"PERL5OPT",
	"PERL5LIB",
	"PERLLIB",
	"PERL5DB",
	"RUBYOPT",
	"RUBYLIB",
	"NODE_OPTIONS",
	"NODE_PATH",
	"JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS",
	"GIT_CONFIG",
	"GIT_CONFIG_*",
	"GIT_DIR",
	"GIT_COMMON_DIR",
	"GIT_EXEC_PATH",
	"GIT_TEMPLATE_DIR",
	"GIT_SSH",
	"GIT_SSH_COMMAND",
	"GIT_PROXY_COMMAND",
	"GIT_EXTERNAL_DIFF",
	"GIT_ASKPASS",
	"SSH_ASKPASS",
	"GIT_EDITOR",
	"GIT_SEQUENCE_EDITOR",
	"GIT_PAGER",
	"PAGER",
	"MANPAGER",
	"EDITOR",
	"VISUAL",
	"LESSOPEN",
	"LESSCLOSE",
	"MAKEFILES",
	"RUSTC",
	"RUSTC_WRAPPER",
	"RUSTC_WORKSPACE_WRAPPER",
	"RUSTDOC",
	"CARGO_BUILD_*",
	"CARGO_TARGET_*",
	"npm_config_*",
	"NPM_CONFIG_*",
	"PIP_*",
	"PYTHONBREAKPOINT",
	"PYTHONPLATLIBDIR",
	"CLASSPATH",
	"DOTNET_STARTUP_HOOKS",
	"LUA_INIT*",
	"LUA_PATH*",
	"LUA_CPATH*",
	"VIMINIT",
	"EXINIT",
	"MAVEN_OPTS",
	"GRADLE_OPTS",
	"GOFLAGS",
	"GOTOOLCHAIN",
	"GOPROXY",
	"RUSTUP_TOOLCHAIN",
	"CARGO_ALIAS_*",
	"CARGO_REGISTRIES_*",
	"CARGO_REGISTRY_*",
	"CARGO_SOURCE_*",
	"BUNDLE_GEMFILE",
	NULL,
};

/* Where programs read their configuration, or code, from: HOME (every
 * dotfile: ~/.gitconfig with its core.fsmonitor, aliases and hook path,
 * ~/.npmrc, ~/.pip, ~/.local's Python user site and its .pth files,
 * ~/.bashrc, ~/.cargo), the XDG base directories (git/config, pip/pip.conf
 * ...), and the homes of the common toolchains. */
const char *const warden_env_location_names[] = {
	"HOME",
	"XDG_CONFIG_HOME",
	"XDG_DATA_HOME",
	"XDG_CACHE_HOME",
	"XDG_STATE_HOME",
	"XDG_CONFIG_DIRS",
	"XDG_DATA_DIRS",
	"ZDOTDIR",
	"INPUTRC",
	"PYTHONPYCACHEPREFIX",
	"CARGO_HOME",
	"RUSTUP_HOME",
	"GOPATH",
	"GOROOT",
	"GOENV",
	"GOMODCACHE",
	"GEM_HOME",
	"GEM_PATH",
	"GRADLE_USER_HOME",
	"NVM_DIR",
	"DENO_DIR",
	"COMPOSER_HOME",
	"GNUPGHOME",
	"CURL_HOME",
	"WGETRC",
	"KUBECONFIG",
	"DOCKER_CONFIG",
	"EMACSLOADPATH",
	"MYVIMRC",
	NULL,
};

static size_t count(const char *const *list)
{
	size_t n = 0;

	while (list[n] != NULL)
		n++;
	return n;
}

static int fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Do the n bytes at a and b match, ASCII case folded? */
static int same_folded(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fold((unsigned char)a[i]) != fold((unsigned char)b[i]))
			return 0;
	return 1;
}

/*
 * fnmatch(pattern, name, FNM_CASEFOLD) for the shapes every scrub pattern
 * has in practice: a literal with a '*' at its start, its end, both or
 * neither (prefix, suffix, substring, whole name).  Returns 1 or 0, or -1
 * for any other pattern ('?', '[', '\\', a '*' inside, a byte outside
 * ASCII), which fnmatch(3) then decides.  With no FNM_PATHNAME or
 * FNM_PERIOD, '*' matches any bytes, and warden runs in the C locale,
 * where FNM_CASEFOLD folds ASCII only: the same answers, without
 * fnmatch's general machinery on every name of the environment.
 */
static int quick_match(const char *pattern, const char *name)
{
	size_t pl = strlen(pattern), nl, i, lo = 0, hi = pl;
	int star_start, star_end;

	for (i = 0; i < pl; i++) {
		unsigned char c = (unsigned char)pattern[i];

		if (c == '?' || c == '[' || c == '\\' || c >= 0x80 ||
		    (c == '*' && i != 0 && i != pl - 1))
			return -1;
	}
	star_start = pl > 0 && pattern[0] == '*';
	star_end = pl > 1 && pattern[pl - 1] == '*';
	if (star_start)
		lo = 1;
	if (star_end)
		hi = pl - 1;
	nl = strlen(name);
	pl = hi - lo;          /* the literal part */
	pattern += lo;
	if (pl > nl)
		return 0;
	if (!star_start && !star_end)
		return nl == pl && same_folded(pattern, name, pl);
	if (!star_start)
		return same_folded(pattern, name, pl);
	if (!star_end)
		return same_folded(pattern, name + nl - pl, pl);
	for (i = 0; i + pl <= nl; i++)
		if (same_folded(pattern, name + i, pl))
			return 1;
	return 0;
}

int warden_env_name_matches(const char *name, const char *const *patterns,
                            size_t n)
{
	size_t i;
	int m;

	for (i = 0; i < n; i++) {
		m = quick_match(patterns[i], name);
		if (m < 0)
			m = fnmatch(patterns[i], name, FNM_CASEFOLD) == 0;
		if (m)
			return 1;
	}
	return 0;
}

int warden_env_patterns(const struct warden_config *cfg,
                        const char ***out, size_t *n,
                        struct warden_error *err)
{
	size_t ndef = count(warden_env_scrub_default), i, j, k = 0;
	const char **list;

	if (cfg == NULL || !cfg->scrub_env_set) {
		list = calloc(ndef + 1, sizeof(*list));
		if (list == NULL)
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		for (i = 0; i < ndef; i++)
			list[k++] = warden_env_scrub_default[i];
	} else {
		list = calloc(cfg->n_scrub_env * (ndef + 1) + 1, sizeof(*list));
		if (list == NULL)
			return warden_error_set(err, WARDEN_EOS, "out of memory");
		for (i = 0; i < cfg->n_scrub_env; i++) {
			if (strcmp(cfg->scrub_env[i], "default") != 0) {
				list[k++] = cfg->scrub_env[i];
				continue;
			}
			for (j = 0; j < ndef; j++)
				list[k++] = warden_env_scrub_default[j];
		}
	}
	*out = list;
	*n = k;
	return 0;
}

int warden_env_build(char *const *env, const char *const *patterns, size_t n,
                     int for_runner, char ***out, struct warden_error *err)
{
	char **list;
	char *name;
	size_t total = 0, kept = 0, i;
	const char *eq;
	int drop;

	while (env != NULL && env[total] != NULL)
		total++;
	list = calloc(total + 1, sizeof(*list));
	if (list == NULL)
		return warden_error_set(err, WARDEN_EOS, "environment: out of memory");
	for (i = 0; i < total; i++) {
		eq = strchr(env[i], '=');
		if (eq == NULL || eq == env[i])
			continue;
		name = strndup(env[i], (size_t)(eq - env[i]));
		if (name == NULL) {
			free(list);
			return warden_error_set(err, WARDEN_EOS,
			                        "environment: out of memory");
		}
		drop = strncmp(name, WARDEN_ENV_OWN_PREFIX,
		               strlen(WARDEN_ENV_OWN_PREFIX)) == 0 ||
		       warden_env_name_matches(name, patterns, n) ||
		       (for_runner &&
		        warden_env_name_matches(name, warden_env_loader_names,
		                                count(warden_env_loader_names)));
		free(name);
		if (!drop)
			list[kept++] = env[i];
	}
	list[kept] = NULL;
	*out = list;
	return 0;
}

/* The length of the name of "NAME=value", or 0 when it has no '=' or an
 * empty name. */
static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq == NULL ? 0 : (size_t)(eq - entry);
}

static int same_name(const char *entry, const char *other)
{
	size_t n = name_len(other);

	return n > 0 && name_len(entry) == n && memcmp(entry, other, n) == 0;
}

void warden_env_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Appends a copy of the n bytes at s to list (room for it is there). */
static int add_copy(char **list, size_t *n, const char *s, size_t len)
{
	if ((list[*n] = strndup(s, len)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

int warden_env_build_approved(char *const *env, const char *const *patterns,
                              size_t n, const struct warden_env_approved *a,
                              struct warden_env_changes *ch,
                              char ***out, struct warden_error *err)
{
	size_t total = 0, kept = 0, i;
	char **list, *name;
	const char *value;
	size_t len;
	int startup, home_seen = 0;

	*out = NULL;
	memset(ch, 0, sizeof(*ch));
	while (env != NULL && env[total] != NULL)
		total++;
	list = calloc(total + 4, sizeof(*list));
	ch->removed = calloc(total + 2, sizeof(*ch->removed));
	ch->config = calloc(total + 2, sizeof(*ch->config));
	if (list == NULL || ch->removed == NULL || ch->config == NULL)
		goto oom;
	for (i = 0; i < total; i++) {
		if ((len = name_len(env[i])) == 0)
			continue;
		value = env[i] + len + 1;
		/* The caller's PATH is replaced (or dropped). */
		if (strncmp(env[i], "PATH=", 5) == 0)
			continue;
		if (a->pwd_entry != NULL && strncmp(env[i], "PWD=", 4) == 0)
			continue;
		/* HOME is the user's own; the caller's, when another, is
		 * listed as removed (once). */
		if (a->home_entry != NULL && strncmp(env[i], "HOME=", 5) == 0) {
			if (strcmp(env[i], a->home_entry) != 0 && !home_seen++ &&
			    add_copy(ch->removed, &ch->n_removed, "HOME", 4) < 0)
				goto oom;
			continue;
		}
		if ((name = strndup(env[i], len)) == NULL)
			goto oom;
		startup = warden_env_name_matches(name, warden_env_loader_names,
		                                  count(warden_env_loader_names)) ||
		          warden_env_name_matches(name, warden_env_startup_names,
		                                  count(warden_env_startup_names));
		if (!startup && strncmp(name, WARDEN_ENV_OWN_PREFIX,
		                        strlen(WARDEN_ENV_OWN_PREFIX)) != 0 &&
		    !warden_env_name_matches(name, patterns, n) &&
		    warden_env_name_matches(name, warden_env_location_names,
		                            count(warden_env_location_names))) {
			/* A place to read configuration from: kept (and shown)
			 * only where the sandboxed command cannot write. */
			if (a->location_ok != NULL &&
			    !a->location_ok(value, a->arg)) {
				ch->removed[ch->n_removed++] = name;
				continue;
			}
			free(name);
			if (add_copy(ch->config, &ch->n_config, env[i],
			             strlen(env[i])) < 0)
				goto oom;
			list[kept++] = env[i];
			continue;
		}
		if (startup) {
			ch->removed[ch->n_removed++] = name;
			continue;
		}
		if (strncmp(name, WARDEN_ENV_OWN_PREFIX,
		            strlen(WARDEN_ENV_OWN_PREFIX)) != 0 &&
		    !warden_env_name_matches(name, patterns, n))
			list[kept++] = env[i];
		free(name);
	}
	if (a->home_entry != NULL) {
		list[kept++] = (char *)a->home_entry;
		/* First: the approver reads HOME before the rest. */
		memmove(ch->config + 1, ch->config,
		        ch->n_config * sizeof(*ch->config));
		ch->n_config++;
		if ((ch->config[0] = strdup(a->home_entry)) == NULL) {
			ch->n_config--;
			memmove(ch->config, ch->config + 1,
			        ch->n_config * sizeof(*ch->config));
			goto oom;
		}
	}
	if (a->path_entry != NULL)
		list[kept++] = (char *)a->path_entry;
	if (a->pwd_entry != NULL)
		list[kept++] = (char *)a->pwd_entry;
	list[kept] = NULL;
	*out = list;
	return 0;
oom:
	free(list);
	warden_env_changes_free(ch);
	return warden_error_set(err, WARDEN_EOS, "environment: out of memory");
}

void warden_env_changes_free(struct warden_env_changes *ch)
{
	if (ch->removed != NULL)
		warden_env_names_free(ch->removed, ch->n_removed);
	if (ch->config != NULL)
		warden_env_names_free(ch->config, ch->n_config);
	memset(ch, 0, sizeof(*ch));
}

int warden_env_set(char ***envp, const char *entry, struct warden_error *err)
{
	char **list = *envp, **grown;
	size_t i, k = 0;

	for (i = 0; list[i] != NULL; i++)
		if (!same_name(list[i], entry))
			list[k++] = list[i];
	grown = realloc(list, (k + 2) * sizeof(*grown));
	if (grown == NULL) {
		list[k] = NULL;
		return warden_error_set(err, WARDEN_EOS, "environment: out of memory");
	}
	grown[k] = (char *)entry;
	grown[k + 1] = NULL;
	*envp = grown;
	return 0;
}
