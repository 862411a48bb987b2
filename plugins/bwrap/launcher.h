/*
 * launcher.h — what warden-bwrap-exec and the bwrap backend agree on: the
 * launcher's name, its exit status and the start of its one fatal line
 * (the backend's second runner-failure rule).
 */
#ifndef WARDEN_BWRAP_LAUNCHER_H
#define WARDEN_BWRAP_LAUNCHER_H

#define WARDEN_BWRAP_EXEC_NAME "warden-bwrap-exec"
#define WARDEN_BWRAP_EXEC_EXIT 125
#define WARDEN_BWRAP_EXEC_FATAL WARDEN_BWRAP_EXEC_NAME ": fatal: "

#endif
