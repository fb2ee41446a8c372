/* main.c: the rollback demo without a window (`ninja rollback-demo`):
 * demo.c's peers run to the end, then print what they did and whether
 * they converged; the exit status says so (docs/rollback.md).
 *
 *     rollback-demo [--frames N] [--seed S] [--food N] [--delay F] [--jitter F] [--loss PERCENT] [--desync F]
 */
#include "demo.h"

#include <stdio.h>

int main(int argc, char **argv) {
    demo_options_t o;
    if (!demo_options(&o, argc, argv)) {
        fprintf(stderr, "usage: rollback-demo [--frames N] [--seed S] [--food N] [--delay F] [--jitter F] "
                        "[--loss PERCENT] [--desync F]\n(the jitter at most the delay, the loss below 100)\n");
        return 2;
    }
    demo_start(&o);
    while (demo_tick()) {}
    return demo_finish();
}
