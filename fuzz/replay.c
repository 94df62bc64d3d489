/* Replays fuzz inputs without libFuzzer (CTest fuzz.replay.*): every file named on the command
 * line, or every file of a directory named, is passed to LLVMFuzzerTestOneInput once. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int one(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    static uint8_t buf[1 << 20];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

int main(int argc, char** argv) {
    int count = 0, bad = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR* d = opendir(argv[i]);
            for (struct dirent* e; d && (e = readdir(d));) {
                if (e->d_name[0] == '.') {
                    continue;
                }
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                bad += one(p);
                count++;
            }
            if (d) {
                closedir(d);
            }
        } else {
            bad += one(argv[i]);
            count++;
        }
    }
    printf("replay: %d inputs\n", count);
    return bad || count == 0 ? 1 : 0;
}
