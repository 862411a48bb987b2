/*
 * host10.c — a host that knows only ABI 1.0, built from the frozen 1.0
 * header beside it: what a plugin built against a newer header meets
 * when an older warden loads it (plugin.h, "Meeting an older host").
 *
 *   host10 PLUGIN.so answerer TOOL SUBJECT [KEY=VALUE...]
 *   host10 PLUGIN.so backend [KEY=VALUE...]
 *
 * It checks the descriptor the way the 1.0 loader did (major, size at
 * least 1.0's, no larger than the symbol, kind, name, version, the
 * required ops of 1.0) and reads only its 1.0 prefix.  Every struct it
 * hands over is exactly 1.0's size, and ends where an inaccessible page
 * begins: a plugin that reads a field the 1.0 host does not have, or
 * writes past the 1.0 confine_out, dies of SIGSEGV here instead of
 * quietly using memory that is not its own.  An answerer decides one
 * request; a backend probes read-only, confines `echo confined` and the
 * argv it gives is run.  Prints what happened, one fact a line; exits 0
 * The workspace root is the current directory.  Exits 0
 * when every step kept the 1.0 contract, 1 when the plugin was refused
 * (the reason on stdout), 2 on a usage or harness error.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <warden/plugin.h>

#if WARDEN_PLUGIN_ABI_MAJOR != 1 || WARDEN_PLUGIN_ABI_MINOR != 0
#error "host10 must be built from the frozen 1.0 header"
#endif

#define MAX_KV 32
#define MAX_ARGS 256

static long page;

/* size bytes that end right where an inaccessible page starts. */
static void *fenced(size_t size)
{
	size_t span = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
	char *base = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED || mprotect(base + span, (size_t)page, PROT_NONE) < 0) {
		perror("host10: mmap");
		exit(2);
	}
	memset(base, 0, span);
	return base + span - size;
}

/* A string in a fence of its own: a plugin reads it and nothing past. */
static const char *fenced_str(const char *s)
{
	char *p = fenced(strlen(s) + 1);

	memcpy(p, s, strlen(s) + 1);
	return p;
}

static void refuse(const char *why)
{
	printf("refused: %s\n", why);
	exit(1);
}

struct sink {
	char *argv[MAX_ARGS + 1];
	size_t argc;
	size_t roots;
};

static int push_arg(void *sink, const char *arg)
{
	struct sink *s = sink;

	if (s->argc == MAX_ARGS || (s->argv[s->argc] = strdup(arg)) == NULL)
		return -1;
	s->argc++;
	return 0;
}

static int push_root(void *sink, const char *path)
{
	struct sink *s = sink;

	(void)path;
	s->roots++;
	return 0;
}

static int run_backend(const struct warden_plugin *p, void *state)
{
	static const char *const cmd[] = { "/bin/echo", "confined" };
	struct warden_probe *probe = fenced(sizeof(*probe));
	struct warden_policy *pol = fenced(sizeof(*pol));
	struct warden_confine_out *out = fenced(sizeof(*out));
	const char **argv = fenced(2 * sizeof(*argv));
	struct sink sink;
	char err[256] = "", cwd[4096];
	int rc, status;
	pid_t pid;
	size_t i;

	rc = p->probe(state, WARDEN_MODE_READ_ONLY, probe);
	probe->detail[sizeof(probe->detail) - 1] = '\0';
	printf("probe read-only: rc %d usable %d enforcement %d privilege_dropped %d detail '%s'\n",
	       rc, probe->usable, probe->enforcement, probe->privilege_dropped,
	       probe->detail);
	if (rc != 0 || probe->usable != 1)
		return 0;

	pol->struct_size = sizeof(*pol);
	pol->mode = WARDEN_MODE_READ_ONLY;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return 2;
	pol->workspace_root = fenced_str(cwd);
	pol->session_id = fenced_str("");
	pol->status_fd = -1;
	memset(&sink, 0, sizeof(sink));
	out->struct_size = sizeof(*out);
	out->sink = &sink;
	out->push_arg = push_arg;
	out->push_writable_root = push_root;
	argv[0] = fenced_str(cmd[0]);
	argv[1] = fenced_str(cmd[1]);
	rc = p->confine(state, argv, 2, pol, out, err, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	printf("confine: rc %d enforcement %d privilege_dropped %d evidence %d argc %zu roots %zu%s%s\n",
	       rc, out->enforcement, out->privilege_dropped, out->evidence,
	       sink.argc, sink.roots, err[0] ? " err " : "", err);
	if (rc != 0)
		return 0;
	if (sink.argc < 3 || sink.argv[0][0] != '/' ||
	    strcmp(sink.argv[sink.argc - 2], cmd[0]) != 0 ||
	    strcmp(sink.argv[sink.argc - 1], cmd[1]) != 0) {
		printf("FAIL: the confined argv does not start with an absolute runner and end with the command\n");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(sink.argv[0], sink.argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2;
	printf("run: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	for (i = 0; i < sink.argc; i++)
		free(sink.argv[i]);
	return 0;
}

static int run_answerer(const struct warden_plugin *p, void *state,
                        const char *tool, const char *subject)
{
	struct warden_request *req = fenced(sizeof(*req));
	char err[512] = "";
	int d;

	req->struct_size = sizeof(*req);
	req->session_id = fenced_str("");
	req->request_id = fenced_str("req-host10");
	req->tool = fenced_str(tool);
	req->subject = fenced_str(subject);
	req->call_id = fenced_str("");
	req->reason = fenced_str("");
	req->requested_mode = fenced_str("");
	req->cwd = fenced_str("/");
	d = p->decide(state, req, err, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	printf("decide: %d err '%s'\n", d, err);
	return 0;
}

int main(int argc, char **argv)
{
	struct warden_open_args *args;
	struct warden_kv *kv;
	struct warden_plugin desc;
	const ElfW(Sym) *sym = NULL;
	const struct warden_plugin *d;
	int first_kv, answerer, rc;
	char err[512] = "";
	Dl_info info;
	void *h, *state;
	size_t n_kv, i;

	if (argc < 3 || (strcmp(argv[2], "answerer") != 0 && strcmp(argv[2], "backend") != 0) ||
	    (strcmp(argv[2], "answerer") == 0 && argc < 5)) {
		fprintf(stderr, "usage: host10 PLUGIN.so answerer TOOL SUBJECT [KEY=VALUE...]\n"
		                "       host10 PLUGIN.so backend [KEY=VALUE...]\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	answerer = strcmp(argv[2], "answerer") == 0;
	first_kv = answerer ? 5 : 3;

	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		refuse(dlerror());
	d = dlsym(h, WARDEN_PLUGIN_SYMBOL);
	if (d == NULL || dladdr1(d, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL)
		refuse("no descriptor");
	/* The 1.0 loader: the header, then the 1.0 prefix and nothing else. */
	if (sym->st_size < 4 * sizeof(uint32_t))
		refuse("descriptor too small for its header");
	memcpy(&desc, d, 4 * sizeof(uint32_t));
	if (desc.abi_major != WARDEN_PLUGIN_ABI_MAJOR)
		refuse("abi major");
	if (desc.struct_size < sizeof(struct warden_plugin))
		refuse("descriptor smaller than abi 1.0's");
	if (desc.struct_size > sym->st_size)
		refuse("descriptor claims more than the symbol has");
	memcpy(&desc, d, sizeof(desc));
	if (desc.kind != (answerer ? WARDEN_PLUGIN_ANSWERER : WARDEN_PLUGIN_BACKEND))
		refuse("kind");
	if (desc.name == NULL || desc.name[0] == '\0' || desc.version == NULL ||
	    desc.version[0] == '\0')
		refuse("name or version");
	if (desc.open == NULL || desc.close == NULL)
		refuse("required op open or close is NULL");
	if (answerer && desc.decide == NULL)
		refuse("required op decide is NULL");
	if (!answerer && desc.probe == NULL)
		refuse("required op probe is NULL");
	if (!answerer && desc.confine == NULL)
		refuse("required op confine is NULL");
	printf("loaded: %s %s, abi %u.%u, descriptor %u bytes (1.0: %zu)\n", desc.name,
	       desc.version, desc.abi_major, desc.abi_minor, desc.struct_size,
	       sizeof(struct warden_plugin));

	n_kv = (size_t)(argc - first_kv);
	if (n_kv > MAX_KV)
		return 2;
	kv = fenced((n_kv ? n_kv : 1) * sizeof(*kv));
	for (i = 0; i < n_kv; i++) {
		char *eq = strchr(argv[first_kv + (int)i], '=');

		if (eq == NULL)
			return 2;
		*eq = '\0';
		kv[i].key = fenced_str(argv[first_kv + (int)i]);
		kv[i].value = fenced_str(eq + 1);
		kv[i].line = (unsigned)(10 + i);
	}
	args = fenced(sizeof(*args));
	args->struct_size = sizeof(*args);
	args->instance = fenced_str("host10");
	args->config_file = fenced_str("/etc/host10.ini");
	args->config_dir = fenced_str("/etc");
	args->kv = kv;
	args->kv_count = n_kv;
	args->libexec_dir = fenced_str(WARDEN_LIBEXEC_DIR);
	state = desc.open(args, err, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	if (state == NULL) {
		printf("open: failed: %s\n", err);
		return 0;
	}
	printf("open: ok\n");
	rc = answerer ? run_answerer(&desc, state, argv[3], argv[4])
	              : run_backend(&desc, state);
	desc.close(state);
	printf("closed\n");
	return rc;
}
