# cli, part: `zamboni scan` (src/cli/scan.c) and the printer of Arrow
# batches as JSON lines and CSV (src/cli/scan_print.c). Included right
# after the zamboni executable is defined. The command needs the catalogs
# (zb_catalog) and scan planning with the row stream (zb_plan, whose row
# stream sources come from cmake/plan_read.cmake); until those exist the
# executable keeps `scan` as a planned command (exit 3). With the
# configuration library (zb_config) it also loads namespace.table from the
# configured catalog.
if(TARGET zb_plan AND TARGET zb_catalog AND
   EXISTS ${PROJECT_SOURCE_DIR}/cmake/plan_read.cmake)
  target_sources(zamboni PRIVATE
    ${PROJECT_SOURCE_DIR}/src/cli/scan.c
    ${PROJECT_SOURCE_DIR}/src/cli/scan_print.c)
  target_link_libraries(zamboni PRIVATE zb_plan zb_catalog zb_table_values
    zb_table_metadata zb_exec m)
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cli/commands.c
    PROPERTIES COMPILE_DEFINITIONS ZB_CLI_HAVE_SCAN=1)
  # namespace.table through the configured catalog (cmake/config.cmake)
  if(TARGET zb_config)
    target_link_libraries(zamboni PRIVATE zb_config)
    set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cli/scan.c
      PROPERTIES COMPILE_DEFINITIONS ZB_CLI_SCAN_HAVE_SETTINGS=1)
  endif()
endif()
