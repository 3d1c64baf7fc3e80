/*
 * cli/verbs/verb_add_files.h - `zamboni add-files TABLE --source DIR_OR_URI`
 * (ops/add_files/add_files.h): its run entry point; its flags and help
 * are in the shared flag table (cli/verbs/verbs.h).
 */
#ifndef ZB_CLI_VERBS_ADD_FILES_H
#define ZB_CLI_VERBS_ADD_FILES_H

/* argv[0] is "add-files"; returns an exit code. */
int zb_cli_add_files_run(int argc, char **argv);

#endif
