# cli, part: the operation verbs (compact, apply-properties,
# remove-dangling-deletes, rewrite-manifests, expire, remove-orphans),
# maintenance and its --status report, describe, plan, warehouses,
# engines, table-config and demo (src/cli/verbs*.c, maintenance.c,
# status.c, describe.c, misc.c, demo.c), and the maintenance run of one
# table in zb_ops (src/ops/maintenance.c). Included right after
# cmake/cli_scan.cmake. Needs the operations (zb_ops with expire,
# remove-orphans and the tidy operations), the configuration layer
# (zb_config) and the catalogs; compaction (and so `compact` and `plan`)
# only when zb_ops holds src/ops/compact.c, else they stay planned
# commands (exit 3).
if(TARGET zb_ops AND TARGET zb_config AND TARGET zb_catalog AND
   TARGET zb_plan)
  get_target_property(_zb_ops_sources zb_ops SOURCES)
  set(_zb_have_ops TRUE)
  foreach(_f expire.c orphans.c apply_props.c dangling.c
          rewrite_manifests.c table_config.c)
    string(REGEX MATCH "(^|;|/)${_f}(;|$)" _m "${_zb_ops_sources}")
    if(NOT _m)
      set(_zb_have_ops FALSE)
    endif()
  endforeach()
  string(REGEX MATCH "(^|;|/)compact\\.c(;|$)" _zb_have_compact
    "${_zb_ops_sources}")
  if(_zb_have_ops)
    target_sources(zb_ops PRIVATE ${PROJECT_SOURCE_DIR}/src/ops/maintenance.c)
    target_sources(zamboni PRIVATE
      ${PROJECT_SOURCE_DIR}/src/cli/verbs.c
      ${PROJECT_SOURCE_DIR}/src/cli/verbs_args.c
      ${PROJECT_SOURCE_DIR}/src/cli/verbs_generate.c
      ${PROJECT_SOURCE_DIR}/src/cli/maintenance.c
      ${PROJECT_SOURCE_DIR}/src/cli/progress.c
      ${PROJECT_SOURCE_DIR}/src/cli/status.c
      ${PROJECT_SOURCE_DIR}/src/cli/describe.c
      ${PROJECT_SOURCE_DIR}/src/cli/misc.c
      ${PROJECT_SOURCE_DIR}/src/cli/demo.c)
    target_link_libraries(zamboni PRIVATE zb_ops zb_config zb_plan
      zb_catalog zb_exec zb_io zb_util)
    set(_zb_cmd_defs ZB_CLI_HAVE_VERBS=1)
    if(_zb_have_compact)
      list(APPEND _zb_cmd_defs ZB_CLI_HAVE_COMPACT=1)
      set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/ops/maintenance.c
        APPEND PROPERTY COMPILE_DEFINITIONS ZB_MAINT_HAVE_COMPACT=1)
      set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/describe.c
        APPEND PROPERTY COMPILE_DEFINITIONS ZB_CLI_HAVE_COMPACT=1)
    endif()
    # commands.c may already carry the scan definition (cli_scan.cmake)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/commands.c
      APPEND PROPERTY COMPILE_DEFINITIONS ${_zb_cmd_defs})
  endif()
endif()
