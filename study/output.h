/* study/output.h — files and directories of the suite's outputs (util.c, inventory.c): where
 * the data are, directories and locks, atomic whole-file writes, strict reads, and the inventory
 * of what a study wrote. It knows nothing of runs, studies or cases (docs/architecture.md §2). */
#ifndef CCB_OUTPUT_H
#define CCB_OUTPUT_H

#include <stddef.h>

#include "log.h"
#include "strbuf.h"

/* Where the data (reference/, analysis/gnuplot/) are: CCB_SOURCE_DIR, else an installed
 * program's share/ccb beside its bin/, else the source tree it was built from. */
const char* ccb_source_dir(void);
/* The command line of this process (ccb_cli_main records it; "" before), for meta.json. */
void ccb_set_command_line(int argc, char** argv);
const char* ccb_command_line(void);
/* A directory and its parents: 0, or -1 with a message if it cannot be created or written. */
int mkdir_p(const char* path, char* msg, size_t n);
/* An advisory lock (flock) on a directory: a second writer is told and waits. The descriptor
 * (close it to release), or -1 with a message. */
int lock_dir(const char* dir, char* msg, size_t n);
/* The same on a command's output tree, held until the process ends (its forks share it); a tree
 * this process holds already is not locked twice. 0, or -1 with a message. */
int lock_tree(const char* dir, char* msg, size_t n);
/* The trees OUT/CASE of the cases a command writes (created, then locked in name order, so
 * that two commands never wait for each other in a cycle): ccb study and ccb gate lock these, so
 * that the gates of two cases run side by side into one --out; ccb reproduce locks them and its
 * root. 0, or -1 with a message. */
int lock_case_trees(const char* out, const char* const* names, int n, char* msg, size_t nmsg);
/* The command's output tree (its --out, set when parsed): a directory mkdir_p meets below it
 * that is a symbolic link is refused (the root itself may be one: the user named it). */
void mkdir_tree_root(const char* root);
/* inventory.c: a study's outputs recorded in OUT/CASE/STUDY/.ccb-results, so that a rerun into
 * the same --out removes what it no longer writes (a figure not drawn, a run of a label gone)
 * and nothing else. case_study_run begins and commits; write_file, the runs and study_plot note
 * (thread-safe; paths outside OUT/CASE are not the study's and are ignored). commit: ok = the
 * study succeeded (else nothing is removed and old and new are kept listed); 0, or -1 with a
 * message. */
void inventory_begin(const char* out_root, const char* cs, const char* study);
/* The same for outputs directly in dir (ccb compare's tables and figures): DIR/.ccb-results. */
void inventory_begin_dir(const char* dir);
void inventory_note_file(const char* path);
void inventory_note_run(const char* dir);
int inventory_commit(int ok, char* msg, size_t n);
/* Removes the directories mkdir_p created in this process that are still empty, deepest first
 * (async-signal-safe: rmdir only; the signal handler of the command line). */
void remove_created_dirs(void);
/* The file `path` replaced atomically by len bytes of text (ccb_writer: a temporary file, fsync,
 * rename; on any failure the old file stays and no temporary file is left). 0, or -1 with a
 * message. Every whole-file result of the command line is written through here. */
int write_file(const char* path, const char* text, size_t len, char* msg, size_t n);
/* The whole text of a regular file of at most max bytes (NUL-terminated; the caller frees it), or
 * NULL with a message naming the path: a FIFO, device or directory is refused without waiting on
 * it, a symbolic link unless follow, a file with a NUL byte (no text). */
char* read_regular_text(const char* path, size_t max, int follow, char* msg, size_t n);

#endif
