/*
 * unixgate.h — a restricted network that lets named host unix sockets
 * through (`[warden] allow_unix_socket`, DESIGN §2 "Network knob").
 *
 * A seccomp filter cannot read the address a connect() names, so the
 * plain network guard (netguard.h) leaves the command no unix socket at
 * all.  The gate keeps unix stream sockets and hands every connect(),
 * bind() and listen() to a supervisor instead (SECCOMP_RET_USER_NOTIF):
 *
 *   - the command's process installs the guard with
 *     WARDEN_NETGUARD_UNIX_GATED and a listener
 *     (warden_unixgate_install), passes the listener to its parent over a
 *     socketpair (warden_unixgate_send) and execs;
 *   - the parent, which holds no such filter, answers each notification
 *     (warden_unixgate_answer): it reads the address from the caller's
 *     memory, takes the caller's socket (pidfd_getfd) and, when the
 *     address is allowed, makes the call itself on that socket, with an
 *     address of its own making; the caller gets its result.
 *
 * What is allowed:
 *   connect(AF_UNIX pathname)  exactly a name on the list, byte for byte
 *                              (no relative name, no link, no other
 *                              spelling): the supervisor connects to the
 *                              socket the name led to when it started
 *                              (warden_unixgate_pin), never to the bytes
 *                              it read nor to what the name leads to by
 *                              then: nothing the caller changes after the
 *                              check (the address) or before it (a link,
 *                              a renamed directory, another socket put in
 *                              the name's place) is what gets connected;
 *                              With `own_netns`, also a socket of the
 *                              command's own: the path, resolved from the
 *                              caller's directory, is opened (O_PATH) and
 *                              is a socket whose listener lives in the
 *                              supervisor's network namespace (sock_diag),
 *                              which is the command's and no host
 *                              process's; the supervisor connects through
 *                              that descriptor (/proc/self/fd/N), so the
 *                              socket checked is the socket reached;
 *   connect(AF_UNIX abstract)  with `own_netns` made on the caller's
 *                              behalf (the abstract namespace is the
 *                              network namespace's: the command's own);
 *                              EACCES otherwise (host services listen
 *                              there);
 *   bind(), listen()           with `own_netns` the filter lets them pass:
 *                              an abstract name (its own namespace's, an
 *                              autobound one too), its loopback, a file
 *                              where its mounts let it write.  Otherwise
 *                              (the host's network namespace):
 *   bind(AF_UNIX)              EACCES: no socket of the command's own on
 *                              the file system or in the abstract
 *                              namespace (it could squat a name a host
 *                              client will look for);
 *   listen(AF_UNIX)            EACCES: a socket with SO_PASSCRED gets an
 *                              abstract name of the kernel's choosing
 *                              (autobind) when it connects, even when the
 *                              connect fails; listening there, the command
 *                              would be reachable by host clients;
 *   listen(any other family)   EACCES (on an unbound socket listen() binds
 *                              an ephemeral port itself);
 *   connect/bind of any other  made on the caller's behalf with
 *   family                     `own_netns` (its loopback is its own),
 *                              EACCES otherwise.
 * A pathname connect() to a name that leads to nothing, or to a file that
 * is no socket, gets what connect() says there (ENOENT, ENOTDIR,
 * ECONNREFUSED): no host service was kept from the command.
 * Each of the first refusals of a connect() or bind() is said on the
 * command's stderr (WARDEN_UNIXGATE_REFUSED), for the host's classifier
 * and the agent; not the name-service cache's socket, which the C library
 * tries of its own accord and does without.
 * Anything the supervisor cannot establish (the caller's memory or socket
 * unreadable, the caller gone, a malformed address) is refused, never let
 * through.  A supervisor that is gone leaves every connect(), bind() and
 * listen() failing with ENOSYS.
 *
 * The supervisor must hold the ptrace right over the command (same user,
 * its ancestor, the command dumpable) to read its memory and take its
 * socket; the supervisor itself should be made undumpable, so that the
 * command cannot ptrace it in turn.
 */
#ifndef WARDEN_UNIXGATE_H
#define WARDEN_UNIXGATE_H

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

/* In the line the supervisor writes on the command's stderr for each of
 * the first refusals ("warden: connect to ADDR refused by the restricted
 * network ..."); the host's classifier takes it for a network denial. */
#define WARDEN_UNIXGATE_REFUSED "refused by the restricted network"

struct warden_unixgate {
	const char *const *allow; /* absolute paths, each shorter than sun_path */
	size_t n_allow;
	int own_netns;            /* the command has a network namespace of its
	                           * own, and the supervisor lives in it */
	int *pinned;              /* per name: an O_PATH descriptor of its
	                           * socket, or -errno (warden_unixgate_pin) */
};

/* Installs the network guard with netguard_flags | WARDEN_NETGUARD_UNIX_GATED
 * on the calling thread (no_new_privs must be set).  Returns the listener
 * (close-on-exec), or -1 with errno set. */
int warden_unixgate_install(int netguard_flags);

/* Passes fd over the unix socket chan; 0, or -1 with errno. */
int warden_unixgate_send(int chan, int fd);

/* Takes a descriptor from chan; the descriptor (close-on-exec), or -1
 * with errno (EPIPE: the other end closed without sending one). */
int warden_unixgate_recv(int chan);

/* Checks that every name on g's list can be a socket address: NULL, or
 * the first that cannot.  (Inline: the backends check with it too.) */
static inline const char *warden_unixgate_bad_name(const struct warden_unixgate *g)
{
	size_t i;

	for (i = 0; i < g->n_allow; i++)
		if (g->allow[i] == NULL || g->allow[i][0] != '/' ||
		    strlen(g->allow[i]) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return g->allow[i] != NULL ? g->allow[i] : "(null)";
	return NULL;
}

/* Opens each listed name (O_PATH, close-on-exec) before the command
 * starts, and keeps the descriptor when it is a socket (else -errno:
 * -ENOENT, -ECONNREFUSED when it is no socket); connects are then made to
 * those sockets (through /proc/self/fd), whatever the names lead to later.
 * 0, or -1 with errno (ENOMEM). */
int warden_unixgate_pin(struct warden_unixgate *g);

/* Whether path is root or lies under it (root absolute, normalised). */
static inline int warden_unixgate_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whether path lies under root as written, resolved, or through the links
 * of its nearest existing directory. */
static inline int warden_unixgate_path_in(const char *path, const char *root)
{
	char dir[PATH_MAX], real[PATH_MAX];
	char *slash;

	if (warden_unixgate_under(path, root) ||
	    (realpath(path, real) != NULL && warden_unixgate_under(real, root)))
		return 1;
	if (strlen(path) >= sizeof(dir))
		return 1;
	strcpy(dir, path);
	while ((slash = strrchr(dir, '/')) != NULL) {
		slash[slash == dir ? 1 : 0] = '\0';
		if (realpath(dir, real) != NULL)
			return warden_unixgate_under(real, root);
		if (slash == dir)
			break;
	}
	return 0;
}

/* The first name on g's list that lies under root (the workspace root:
 * absolute, resolved, normalised), as written, resolved, through the
 * links of its nearest existing directory, or as the target of a link it
 * is (dangling ones included); NULL when none.  A confined command can
 * write there: it could put a link or another socket in the name's place,
 * and a later run would connect to that.  (Inline: the backends check
 * with it.) */
static inline const char *warden_unixgate_in_root(const struct warden_unixgate *g,
                                                  const char *root)
{
	size_t i;

	if (root == NULL || root[0] != '/')
		return NULL;
	for (i = 0; i < g->n_allow; i++) {
		char path[PATH_MAX], target[PATH_MAX];
		int hops;

		if (strlen(g->allow[i]) >= sizeof(path))
			return g->allow[i];
		strcpy(path, g->allow[i]);
		for (hops = 0; hops < 40; hops++) {
			ssize_t n;

			if (warden_unixgate_path_in(path, root))
				return g->allow[i];
			n = readlink(path, target, sizeof(target) - 1);
			if (n < 0)
				break;
			target[n] = '\0';
			if (target[0] == '/') {
				strcpy(path, target);
			} else {
				char *slash = strrchr(path, '/');
				size_t keep = (size_t)(slash - path) + 1;

				if (keep + (size_t)n >= sizeof(path))
					return g->allow[i];
				memcpy(path + keep, target, (size_t)n + 1);
			}
		}
		if (hops == 40)
			return g->allow[i];
	}
	return NULL;
}

/* Answers the notification waiting on listener (call when it is
 * readable).  0 when answered, or when the caller went away meanwhile;
 * -1 with errno when the listener itself failed. */
int warden_unixgate_answer(int listener, const struct warden_unixgate *g);

#endif
