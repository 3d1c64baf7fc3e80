# cli, part: the add-files verb (src/cli/verbs_add_files.c), when the
# other verbs (cmake/cli_verbs.cmake) and add-files in zb_ops
# (cmake/ops_add_files.cmake) are in the build.
if(TARGET zb_ops AND TARGET zamboni)
  get_target_property(_zb_af_ops zb_ops SOURCES)
  get_target_property(_zb_af_cli zamboni SOURCES)
  string(REGEX MATCH "(^|;|/)add_files\\.c(;|$)" _zb_af_have "${_zb_af_ops}")
  string(REGEX MATCH "(^|;|/)verbs_args\\.c(;|$)" _zb_af_verbs
    "${_zb_af_cli}")
  if(_zb_af_have AND _zb_af_verbs)
    target_sources(zamboni PRIVATE
      ${PROJECT_SOURCE_DIR}/src/cli/verbs_add_files.c)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/commands.c
      APPEND PROPERTY COMPILE_DEFINITIONS ZB_CLI_HAVE_ADD_FILES=1)
  endif()
endif()
