# Deploying (issue 20), label deploy:
#   deploy_install    cmake --install of this build with DESTDIR: the files,
#                     the units' ExecStart, a program built by zamboni.pc,
#                     only the public API exported
#   deploy_deb        the packaging build (zamboni, libzamboni, man page
#                     only), cpack -G DEB, lintian, dpkg -i, --version, the
#                     demo, a program built with pkg-config, dpkg --purge.
#                     Needs root or passwordless sudo (skipped, 77, else).
#                     Its build is WORK_DIR/build, kept between runs.
#   deploy_manifests  kubectl kustomize of deploy/kubernetes (base and the
#                     example overlay), every object validated by
#                     kubernetes-models / @kubernetes-models/keda and the
#                     rules of docs/deploy.md checked.
# The package test makes its own non-sanitized build: not in sanitizer
# builds, where it would test nothing new.
if(NOT ZB_SANITIZE AND NOT ZB_SANITIZE_THREAD)
  if(ZB_LIBZAMBONI)
    add_test(NAME deploy_install
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_SOURCE_DIR}
              ${CMAKE_BINARY_DIR})
    set_tests_properties(deploy_install PROPERTIES LABELS deploy TIMEOUT 120)
  endif()
  add_test(NAME deploy_deb
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/deb_test.sh ${PROJECT_SOURCE_DIR}
            ${CMAKE_BINARY_DIR}/deploy-deb)
  set_tests_properties(deploy_deb PROPERTIES LABELS deploy TIMEOUT 600
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endif()

find_program(ZB_KUBECTL kubectl)
find_program(ZB_NODE NAMES node nodejs)
if(NOT ZB_KUBECTL OR NOT ZB_NODE)
  add_test(NAME deploy_manifests COMMAND ${CMAKE_COMMAND}
    "-DMSG=kubectl or node was not found at configure time; run scripts/install-deps.sh and re-run cmake"
    -P ${PROJECT_SOURCE_DIR}/tests/interop/fail.cmake)
else()
  add_test(NAME deploy_manifests
    COMMAND ${ZB_NODE} ${CMAKE_CURRENT_LIST_DIR}/manifests_test.mjs
            ${ZB_KUBECTL} ${PROJECT_SOURCE_DIR}/deploy/kubernetes)
endif()
set_tests_properties(deploy_manifests PROPERTIES LABELS deploy TIMEOUT 120)
