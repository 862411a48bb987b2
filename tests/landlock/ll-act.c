/*
 * ll-act — small actions the Landlock runner tests perform inside and
 * around the sandbox, where a shell tool would hide the errno or cannot do
 * the thing at all (an i386 syscall, a pty, a status pipe).
 *
 *   ll-act fds                      print each open fd above 2, one a line
 *   ll-act setxattr PATH            set user.warden on PATH
 *   ll-act listxattr PATH           print the xattr names of PATH
 *   ll-act truncate PATH            truncate(2) PATH to 0 bytes by its name
 *   ll-act i386-chmod PATH          chmod PATH 0777 through the i386 ABI
 *   ll-act i386-getpid              an i386 syscall the guard allows
 *   ll-act userns                   unshare(CLONE_NEWUSER)
 *   ll-act chattr PATH              set FS_NOATIME_FL on PATH (ioctl)
 *   ll-act tiocsti                  push "id\n" into the terminal on fd 0
 *   ll-act ctty                     open /dev/tty (the controlling terminal)
 *                                   for reading, which Landlock allows
 *   ll-act args ARG...              print each argument in hex, one a line
 *   ll-act pty leader|member ARGV   run ARGV in a new pty session; print
 *                                   "exit=N" and "input=clean|injected"
 *   ll-act status ARGV              run ARGV with a status pipe; "@FD@" in
 *                                   ARGV becomes its number; print "exit=N"
 *                                   and "status=<what was written>|EMPTY"
 *   ll-act getversion PATH          print PATH's inode generation
 *                                   (FS_IOC_GETVERSION on a read-only fd)
 *   ll-act setversion PATH [hi|ext4] set it to 4242 through a read-only fd:
 *                                   FS_IOC_SETVERSION, the same with junk in
 *                                   the request's high 32 bits (the kernel
 *                                   reads an unsigned int), or ext4's
 *                                   EXT4_IOC_SETVERSION
 *   ll-act fiogetown                FIOGETOWN on a socket: a harmless
 *                                   request the ioctl allowlist leaves out
 *   ll-act ipc-create KEY           create a SysV shm segment, semaphore
 *                                   set and message queue with KEY and the
 *                                   POSIX message queue /warden-KEY
 *   ll-act ipc-remove KEY           remove all four
 *   ll-act ipc-exists KEY           say which of the four exist
 *
 * The single actions print "ACTION: ok" (exit 0) or "ACTION: strerror"
 * (exit 1).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mqueue.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

static int report(const char *what, int r)
{
	if (r == 0) {
		printf("%s: ok\n", what);
		return 0;
	}
	printf("%s: %s\n", what, strerror(errno));
	return 1;
}

static int act_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (d == NULL)
		return report("fds", -1);
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd > 2 && fd != dirfd(d))
			printf("%d\n", fd);
	}
	closedir(d);
	return 0;
}

#if defined(__x86_64__)
/* An i386 syscall from a 64-bit process: int 0x80 with 32-bit registers;
 * the path must live below 4 GiB. */
static long i386_syscall(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a), "c"(b)
	                 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int act_i386(const char *what, long nr, const char *path, long b)
{
	long a = 0;
	if (path != NULL) {
		char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (low == MAP_FAILED)
			return report(what, -1);
		snprintf(low, 4096, "%s", path);
		a = (long)low;
	}
	long r = i386_syscall(nr, a, b);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return report(what, -1);
	}
	return report(what, 0);
}
#endif

static int act_pty(int leader, char **argv)
{
	int master, slave;
	int status;

	if (openpty(&master, &slave, NULL, NULL, NULL) < 0)
		return report("openpty", -1);
	pid_t pid = fork();
	if (pid < 0)
		return report("fork", -1);
	if (pid == 0) {
		close(master);
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
			_exit(126);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		if (!leader) {
			/* A plain member of the session, as under a shell
			 * without job control. */
			pid_t c = fork();
			if (c < 0)
				_exit(126);
			if (c > 0) {
				int st;
				waitpid(c, &st, 0);
				_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128);
			}
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	/* Keep the output flowing so the child never blocks on the pty; the
	 * slave stays open here, so the master never reports end of file. */
	char buf[4096];
	for (;;) {
		struct pollfd pfd = { .fd = master, .events = POLLIN };
		if (poll(&pfd, 1, 50) > 0 && (pfd.revents & POLLIN)) {
			ssize_t n = read(master, buf, sizeof buf);
			if (n > 0)
				fwrite(buf, 1, (size_t)n, stderr);
			continue;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	printf("exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128);

	/* Whatever TIOCSTI pushed sits in the terminal's input queue. */
	struct termios t;
	tcgetattr(slave, &t);
	cfmakeraw(&t);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tcsetattr(slave, TCSANOW, &t);
	int queued = 0;
	if (ioctl(slave, FIONREAD, &queued) < 0)
		return report("FIONREAD", -1);
	ssize_t n = read(slave, buf, sizeof buf);
	printf("input=%s\n", (queued > 0 || n > 0) ? "injected" : "clean");
	return 0;
}

static int act_status(char **argv)
{
	int p[2];
	char fdname[16];
	int status;

	if (pipe(p) < 0)
		return report("pipe", -1);
	snprintf(fdname, sizeof fdname, "%d", p[1]);
	for (char **a = argv; *a != NULL; a++)
		if (strcmp(*a, "@FD@") == 0)
			*a = fdname;
	pid_t pid = fork();
	if (pid < 0)
		return report("fork", -1);
	if (pid == 0) {
		close(p[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	char buf[4096];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(p[0], buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	waitpid(pid, &status, 0);
	printf("exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	printf("status=%s\n", len > 0 ? buf : "EMPTY");
	return 0;
}

static int act_version(int argc, char **argv)
{
	/* ext4's own spelling (fs/ext4/ext4.h). */
	const unsigned long ext4_setversion = _IOW('f', 4, long);
	int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	long v = 4242;
	unsigned long req = FS_IOC_SETVERSION;

	if (fd < 0)
		return report(argv[1], -1);
	if (strcmp(argv[1], "getversion") == 0) {
		if (ioctl(fd, FS_IOC_GETVERSION, &v) < 0)
			return report(argv[1], -1);
		printf("%lu\n", (unsigned long)(unsigned int)v);
		return 0;
	}
	if (argc == 4 && strcmp(argv[3], "ext4") == 0)
		req = ext4_setversion;
	else if (argc == 4 && strcmp(argv[3], "hi") == 0)
		req |= 0x5a5a5a5aUL << 32;
	else if (argc != 3)
		return 2;
	/* The raw syscall, so that the high bits reach the kernel. */
	return report(argv[1], (int)syscall(SYS_ioctl, fd, req, &v));
}

static int act_ipc(const char *what, const char *keytext)
{
	key_t key = (key_t)strtol(keytext, NULL, 0);
	char name[64];
	int bad = 0, id;

	snprintf(name, sizeof name, "/warden-%s", keytext);
	if (strcmp(what, "ipc-create") == 0) {
		mqd_t q;

		bad |= report("shmget", shmget(key, 4096, IPC_CREAT | 0600) < 0 ? -1 : 0);
		bad |= report("semget", semget(key, 1, IPC_CREAT | 0600) < 0 ? -1 : 0);
		bad |= report("msgget", msgget(key, IPC_CREAT | 0600) < 0 ? -1 : 0);
		q = mq_open(name, O_CREAT | O_RDONLY, 0600, NULL);
		bad |= report("mq_open", q == (mqd_t)-1 ? -1 : 0);
		return bad;
	}
	if (strcmp(what, "ipc-remove") == 0) {
		id = shmget(key, 0, 0);
		bad |= report("shmctl", id < 0 ? -1 : shmctl(id, IPC_RMID, NULL));
		id = semget(key, 0, 0);
		bad |= report("semctl", id < 0 ? -1 : semctl(id, 0, IPC_RMID));
		id = msgget(key, 0);
		bad |= report("msgctl", id < 0 ? -1 : msgctl(id, IPC_RMID, NULL));
		bad |= report("mq_unlink", mq_unlink(name));
		return bad;
	}
	printf("shm=%s\n", shmget(key, 0, 0) >= 0 ? "yes" : "no");
	printf("sem=%s\n", semget(key, 0, 0) >= 0 ? "yes" : "no");
	printf("msg=%s\n", msgget(key, 0) >= 0 ? "yes" : "no");
	mqd_t q = mq_open(name, O_RDONLY);
	printf("mq=%s\n", q != (mqd_t)-1 ? "yes" : "no");
	return 0;
}

int main(int argc, char **argv)
{
	const char *act = argc > 1 ? argv[1] : "";

	if (strcmp(act, "fds") == 0)
		return act_fds();
	if (strcmp(act, "setxattr") == 0 && argc == 3)
		return report(act, setxattr(argv[2], "user.warden", "x", 1, 0));
	if (strcmp(act, "listxattr") == 0 && argc == 3) {
		char names[4096];
		ssize_t n = listxattr(argv[2], names, sizeof names);
		if (n < 0)
			return report(act, -1);
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
			printf("%s\n", names + i);
		return 0;
	}
	if (strcmp(act, "truncate") == 0 && argc == 3)
		return report(act, truncate(argv[2], 0));
	if (strcmp(act, "userns") == 0)
		return report(act, unshare(CLONE_NEWUSER));
	if (strcmp(act, "chattr") == 0 && argc == 3) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		long flags = 0;
		if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
			return report(act, -1);
		flags |= FS_NOATIME_FL;
		return report(act, ioctl(fd, FS_IOC_SETFLAGS, &flags));
	}
	if (strcmp(act, "ctty") == 0) {
		int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
		return report(act, fd < 0 ? -1 : 0);
	}
	if (strcmp(act, "tiocsti") == 0) {
		const char *s = "id\n";
		for (; *s != '\0'; s++)
			if (ioctl(0, TIOCSTI, s) < 0)
				return report(act, -1);
		return report(act, 0);
	}
#if defined(__x86_64__)
	if (strcmp(act, "i386-chmod") == 0 && argc == 3)
		return act_i386(act, 15, argv[2], 0777);
	if (strcmp(act, "i386-getpid") == 0)
		return act_i386(act, 20, NULL, 0);
#endif
	if (strcmp(act, "args") == 0) {
		for (int i = 2; i < argc; i++) {
			for (const unsigned char *c = (const unsigned char *)argv[i];
			     *c != '\0'; c++)
				printf("%02x", *c);
			printf("\n");
		}
		return 0;
	}
	if ((strcmp(act, "getversion") == 0 && argc == 3) ||
	    (strcmp(act, "setversion") == 0 && (argc == 3 || argc == 4)))
		return act_version(argc, argv);
	if (strcmp(act, "fiogetown") == 0) {
		int sv[2], owner = 0;
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			return report(act, -1);
		return report(act, ioctl(sv[0], FIOGETOWN, &owner));
	}
	if ((strcmp(act, "ipc-create") == 0 || strcmp(act, "ipc-remove") == 0 ||
	     strcmp(act, "ipc-exists") == 0) && argc == 3)
		return act_ipc(act, argv[2]);
	if (strcmp(act, "pty") == 0 && argc > 3)
		return act_pty(strcmp(argv[2], "leader") == 0, argv + 3);
	if (strcmp(act, "status") == 0 && argc > 2)
		return act_status(argv + 2);
	fprintf(stderr, "ll-act: unknown action (see the header of ll-act.c)\n");
	return 2;
}
