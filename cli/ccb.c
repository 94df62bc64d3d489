/* ccb: the command-line program (main.c holds it, so that a program with its own registered
 * approximations can be `ccb` too: cases/tests/toy_variant.c). */
#include "cli.h"

int main(int argc, char** argv) {
    return ccb_cli_main(argc, argv);
}
