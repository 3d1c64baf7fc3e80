/*
 * cli/verbs/verb_scan.h - `zamboni scan`: a table's live rows, or their count.
 */
#ifndef ZB_CLI_SCAN_H
#define ZB_CLI_SCAN_H

/* argv[0] is "scan"; returns an exit code (cli/exit.h); its help is
 * printed from the flag table (cli/verbs/verbs.h). */
int zb_cli_scan_run(int argc, char **argv);

#endif
