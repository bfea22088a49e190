# `cmake --install` for ldpkit (docs/c_api.md, "Packaging"): libraries, headers, the CMake package
#   find_package(ldpkit REQUIRED COMPONENTS device|platform|server)  ->  ldp::device, ldp::capi, ...
# and the pkg-config files ldpkit-device.pc and ldpkit-server.pc. Each component is its own install
# component and export set, so `cmake --install <build> --component device` gives a usable package
# with no server files (bare-metal builds have no server at all).
#
# The module CMakeLists stay as they are: this file rewrites, for the export, the include
# directories (build tree -> installed include/) and drops the internal interface targets
# (warning flags, the xsimd header shim) that reach the link interface as $<LINK_ONLY:...>.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

option(LDP_INSTALL "Generate the install rules and package files" ${PROJECT_IS_TOP_LEVEL})

set(_ldp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ldpkit)
set(_ldp_internal_targets ldp_warnings ldp_xsimd ldp_doctest)

# Targets of each component, in dependency order; every component needs `device` (base, kernels,
# random, wire live there), server also needs platform.
set(_ldp_component_device ldp_base ldp_kernels ldp_random ldp_wire ldp_device ldp_capi)
set(_ldp_component_platform ldp_platform)
set(_ldp_component_server ldp_server ldp_capi_server)

# Include directories: the source tree while building, <prefix>/include once installed.
function(_ldp_export_includes target out_dirs)
  get_target_property(_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  set(_rewritten)
  set(_sources)
  if(_dirs)
    foreach(_dir IN LISTS _dirs)
      list(APPEND _rewritten "$<BUILD_INTERFACE:${_dir}>")
      list(APPEND _sources "${_dir}")
    endforeach()
    list(APPEND _rewritten "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_rewritten}")
  endif()
  set(${out_dirs} "${_sources}" PARENT_SCOPE)
endfunction()

# $<LINK_ONLY:ldp_warnings> and the like carry nothing to link: keep them in the build tree only.
function(_ldp_export_link_interface target)
  get_target_property(_libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT _libs)
    return()
  endif()
  set(_rewritten)
  foreach(_lib IN LISTS _libs)
    foreach(_internal IN LISTS _ldp_internal_targets)
      if(_lib STREQUAL "$<LINK_ONLY:${_internal}>" OR _lib STREQUAL "${_internal}")
        set(_lib "$<BUILD_INTERFACE:${_lib}>")
      endif()
    endforeach()
    list(APPEND _rewritten "${_lib}")
  endforeach()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_rewritten}")
endfunction()

function(_ldp_install_component component)
  set(_targets)
  foreach(_target IN LISTS _ldp_component_${component})
    if(TARGET ${_target})
      list(APPEND _targets ${_target})
    endif()
  endforeach()
  if(NOT _targets)
    return()
  endif()
  foreach(_target IN LISTS _targets)
    string(REGEX REPLACE "^ldp_" "" _name ${_target})
    set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
    _ldp_export_includes(${_target} _dirs)
    _ldp_export_link_interface(${_target})
    foreach(_dir IN LISTS _dirs)
      # ldp.h and ldp_server.h (and ldp_central.h) share a directory but not a component.
      install(DIRECTORY ${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT ${component}
              PATTERN ldp_server.h EXCLUDE PATTERN ldp_central.h EXCLUDE)
    endforeach()
  endforeach()
  if(component STREQUAL "server")
    install(FILES ${PROJECT_SOURCE_DIR}/lib/capi/include/ldp_server.h ${PROJECT_SOURCE_DIR}/lib/capi/include/ldp_central.h
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT server)
  endif()
  install(TARGETS ${_targets} EXPORT ldpkit-${component}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${component})
  install(EXPORT ldpkit-${component} NAMESPACE ldp:: FILE ldpkit-${component}-targets.cmake
          DESTINATION ${_ldp_cmake_dir} COMPONENT ${component})
  set_property(GLOBAL APPEND PROPERTY LDP_PACKAGE_COMPONENTS ${component})
endfunction()

# pkg-config: -l flags in link order, the configuration macros the headers depend on, and the C++
# runtime a C program needs to link these static C++ libraries.
function(_ldp_pkg_config component description requires libs runtime)
  set(LDP_PC_NAME ldpkit-${component})
  set(LDP_PC_DESCRIPTION "${description}")
  file(RELATIVE_PATH _up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(LDP_PC_PREFIX "\${pcfiledir}/${_up}")  # relocatable: the prefix is found from the file
  set(LDP_PC_REQUIRES "${requires}")
  list(TRANSFORM libs PREPEND "-l")
  string(JOIN " " LDP_PC_LIBS ${libs})
  if(LDP_SIMD)
    set(_simd 1)
  else()
    set(_simd 0)
  endif()
  set(LDP_PC_CFLAGS "-DLDP_CONFIG_SIMD=${_simd} -DLDP_CONFIG_DRBG_BLOCKS=${LDP_CONFIG_DRBG_BLOCKS}")
  if(LDP_BARE_METAL)
    string(APPEND LDP_PC_CFLAGS " -DLDP_BARE_METAL")
  endif()
  set(LDP_PC_RUNTIME "")
  if(runtime)  # the last library of the link line: what CMake itself adds to link C++ from C
    set(_runtime ${CMAKE_CXX_IMPLICIT_LINK_LIBRARIES})
    foreach(_lib IN LISTS CMAKE_C_IMPLICIT_LINK_LIBRARIES)
      list(REMOVE_ITEM _runtime ${_lib})
    endforeach()
    list(REMOVE_DUPLICATES _runtime)
    list(TRANSFORM _runtime PREPEND "-l")
    string(JOIN " " LDP_PC_RUNTIME ${_runtime})
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ldpkit.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${LDP_PC_NAME}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${LDP_PC_NAME}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ${component})
endfunction()

# Runs at the end of the top-level CMakeLists.txt, when every target exists. (tools/ installs `ldp`.)
function(ldp_install_package)
  foreach(_component device platform server)
    _ldp_install_component(${_component})
  endforeach()
  get_property(_components GLOBAL PROPERTY LDP_PACKAGE_COMPONENTS)

  set(LDP_PACKAGE_COMPONENTS "${_components}")
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ldpkitConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/ldpkitConfig.cmake INSTALL_DESTINATION ${_ldp_cmake_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/ldpkitConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)  # 0.x: minors may break the API
  install(FILES ${PROJECT_BINARY_DIR}/ldpkitConfig.cmake ${PROJECT_BINARY_DIR}/ldpkitConfigVersion.cmake
          DESTINATION ${_ldp_cmake_dir} COMPONENT device)

  _ldp_pkg_config(device "ldpkit device half: randomizers, C API (ldp.h)" ""
                  "ldp_capi;ldp_device;ldp_random;ldp_wire;ldp_kernels;ldp_base" ON)
  if("server" IN_LIST _components)
    _ldp_pkg_config(server "ldpkit server half: aggregators, C API (ldp_server.h)" "ldpkit-device"
                    "ldp_capi_server;ldp_server;ldp_platform" OFF)
  endif()
endfunction()

if(LDP_INSTALL)
  cmake_language(DEFER CALL ldp_install_package)
endif()
