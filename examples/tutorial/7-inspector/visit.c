/* visit.c: the visitor of step 7, a minimal HTTP/1.0 client on a thread. */
#define _POSIX_C_SOURCE 200809L
#include "visit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VISIT_MAX 8
#define VISIT_ANSWER 16384

struct visit_t {
    uint16_t port;
    const char *const *paths;
    char answers[VISIT_MAX][VISIT_ANSWER];
    bool done; /* written by the visitor's thread, read by the game's */
    pthread_t thread;
};

/* GET `path` on a fresh connection; the answer into out (NUL-terminated). */
static void visit_get(uint16_t port, const char *path, char *out, size_t cap) {
    out[0] = '\0';
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return;
    }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char request[256];
    int n = snprintf(request, sizeof request, "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n\r\n", path, (unsigned)port);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 && send(fd, request, (size_t)n, 0) == n) {
        size_t got = 0;
        ssize_t k;
        while (got + 1 < cap && (k = recv(fd, out + got, cap - 1 - got, 0)) > 0) {
            got += (size_t)k;
        }
        out[got] = '\0';
    }
    close(fd);
}

static void *visit_run(void *arg) {
    visit_t *v = arg;
    for (int i = 0; i < VISIT_MAX && v->paths[i] != NULL; i++) {
        visit_get(v->port, v->paths[i], v->answers[i], VISIT_ANSWER);
    }
    __atomic_store_n(&v->done, true, __ATOMIC_RELEASE);
    return NULL;
}

visit_t *visit_start(uint16_t port, const char *const *paths) {
    visit_t *v = calloc(1, sizeof *v);
    if (v == NULL) {
        return NULL;
    }
    v->port = port;
    v->paths = paths;
    if (pthread_create(&v->thread, NULL, visit_run, v) != 0) {
        free(v);
        return NULL;
    }
    return v;
}

bool visit_done(const visit_t *v) {
    return __atomic_load_n(&v->done, __ATOMIC_ACQUIRE);
}

const char *visit_answer(const visit_t *v, int i) {
    return i >= 0 && i < VISIT_MAX ? v->answers[i] : "";
}

void visit_end(visit_t *v) {
    if (v != NULL) {
        pthread_join(v->thread, NULL);
        free(v);
    }
}

void visit_frame_wait(void) {
    nanosleep(&(struct timespec){.tv_nsec = 1000000000 / 60}, NULL);
}
