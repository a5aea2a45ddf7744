// SPDX-License-Identifier: MIT
/*
 * ttm-i915-server: one i915 device of a profile, served on a Unix socket to
 * clients speaking server_wire.h (for a CI farm, or clients that are not
 * forked from the process that created the device).
 *
 *   ttm-i915-server [-s SOCKET] [-p PROFILE] [-o MODULE_OPTIONS]
 *
 * SOCKET defaults to <srv_socket_dir()>/server-<profile>.sock. The program
 * prints "listening on SOCKET" once clients may connect, serves until
 * SIGTERM or SIGINT, then closes every file still open and destroys the
 * device.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-s SOCKET] [-p PROFILE] [-o MODULE_OPTIONS]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *profile = NULL, *params = NULL;
	char path[160], dir[128];
	struct i915_device *i915;
	struct srv *s;
	sigset_t set;
	int opt, sig, ret;

	while ((opt = getopt(argc, argv, "s:p:o:h")) != -1) {
		switch (opt) {
		case 's':
			sock = optarg;
			break;
		case 'p':
			profile = optarg;
			break;
		case 'o':
			params = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
	if (!sock) {
		ret = srv_socket_dir(dir, sizeof(dir));
		if (ret) {
			fprintf(stderr, "ttm-i915-server: socket directory: %s\n", strerror(-ret));
			return 1;
		}
		snprintf(path, sizeof(path), "%s/server-%s.sock", dir,
			 profile ? profile : "default");
		sock = path;
	}
	/* Signals wait in sigwait(); the server's threads block them all. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = i915_gem_device_create_params(profile, params, &i915);
	if (ret) {
		fprintf(stderr, "ttm-i915-server: cannot create the device (profile %s): %s\n",
			profile ? profile : "default", strerror(-ret));
		return 1;
	}
	ret = srv_create(i915, sock, NULL, &s);
	if (ret) {
		fprintf(stderr, "ttm-i915-server: %s: %s\n", sock, strerror(-ret));
		i915_gem_device_destroy(i915);
		return 1;
	}
	printf("listening on %s\n", sock);
	fflush(stdout);
	do
		ret = sigwait(&set, &sig);
	while (ret == EINTR);
	srv_destroy(s);
	i915_gem_device_destroy(i915);
	return 0;
}
