/*
 * cli/verbs/verb_queue.h - the queue's verbs: db migrate, enqueue
 * (verb_queue.c), tasks and history (verb_queue_tasks.c). Each returns an
 * exit code; argv[0] is the verb.
 */
#ifndef ZB_CLI_VERB_QUEUE_H
#define ZB_CLI_VERB_QUEUE_H

int zb_cli_db_run(int argc, char **argv);
int zb_cli_enqueue_run(int argc, char **argv);
int zb_cli_tasks_run(int argc, char **argv);
int zb_cli_history_run(int argc, char **argv);

#endif
