/* byhandle FILE MOUNTDIR: opens FILE for writing through open_by_handle_at, with the handle
 * name_to_handle_at gives for it and a descriptor of MOUNTDIR (a read-write mount of the same
 * file system) as the mount, and appends a line. With CAP_DAC_READ_SEARCH this reaches a file
 * under a read-only bind mount. Prints "written" or "refused: <errno text>". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: byhandle FILE MOUNTDIR\n");
		return 2;
	}
	struct file_handle *h = malloc(sizeof(*h) + MAX_HANDLE_SZ);
	h->handle_bytes = MAX_HANDLE_SZ;
	int mnt_id;
	if (name_to_handle_at(AT_FDCWD, argv[1], h, &mnt_id, 0) != 0) {
		printf("nohandle: %s\n", strerror(errno));
		return 3;
	}
	int mfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (mfd < 0) {
		printf("nomount: %s\n", strerror(errno));
		return 3;
	}
	int fd = open_by_handle_at(mfd, h, O_WRONLY | O_APPEND);
	if (fd < 0) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	if (write(fd, "by handle\n", 10) != 10) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	printf("written\n");
	return 0;
}
