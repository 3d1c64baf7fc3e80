#!/usr/bin/env bash
# The zamboni executable's surface: help, version, usage errors and exit
# codes. Usage: cli_basics.sh PATH/TO/zamboni
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

expect help 0 '^Usage: zamboni' '' -- --help
expect help_lists_maintenance 0 'maintenance' '' -- --help
expect help_explains_exit_codes 0 'Exit codes' '' -- -h
expect help_command 0 'Usage: zamboni version' '' -- help version
expect help_unknown_command 2 '' "unknown command 'frobnicate'" -- help frobnicate
expect version 0 '^zamboni [0-9]+\.[0-9]+\.[0-9]+$' '' -- --version
expect version_command 0 '^zamboni [0-9]+\.' '' -- version
expect bogus_option 2 '' "unknown option '--bogus'" -- --bogus
expect bogus_option_after_valid 2 '' "unknown option '--bogus'" -- -v --bogus
expect unknown_command 2 '' "unknown command 'frobnicate'" -- frobnicate
expect no_command 2 '' 'Usage: zamboni' --
expect missing_value 2 '' "option '--log-format' needs a value" -- --log-format
expect bad_log_format 2 '' "invalid value 'xml' for --log-format" -- --log-format xml
expect bad_log_level 2 '' "invalid value 'loud' for --log-level" -- --log-level loud
expect version_extra_arg 2 '' "unexpected argument 'x'" -- version x
# serve exists (issue 18): with no warehouse to serve it says how to
# name one (usage)
expect serve_without_warehouse 2 '' 'no warehouse to serve' -- serve
# worker exists (issue 17): without a catalog database it says where the
# queue would live, and fails
expect worker_without_database 1 '' 'no catalog database' -- worker

harness_done
