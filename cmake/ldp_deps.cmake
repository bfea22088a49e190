# Header-only dependencies from Debian packages (xsimd, doctest). A cross build must not put the
# host's /usr/include on its search path (it would shadow the target's C library headers), so each
# package directory is exposed alone through a symlink in the build tree.

function(ldp_header_shim name header)
  find_path(_ldp_${name}_root ${header} PATHS /usr/include /usr/local/include
            NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH)
  if(NOT _ldp_${name}_root)
    message(FATAL_ERROR "${header} not found: install the Debian package (see README.md)")
  endif()
  get_filename_component(_top "${header}" DIRECTORY)
  set(_shim "${CMAKE_BINARY_DIR}/_shim/${name}")
  file(MAKE_DIRECTORY "${_shim}")
  file(CREATE_LINK "${_ldp_${name}_root}/${_top}" "${_shim}/${_top}" SYMBOLIC)
  add_library(ldp_${name} INTERFACE)
  target_include_directories(ldp_${name} SYSTEM INTERFACE "${_shim}")
endfunction()

if(LDP_SIMD)
  ldp_header_shim(xsimd xsimd/xsimd.hpp)
endif()
if(LDP_BUILD_TESTS AND NOT LDP_BARE_METAL)
  ldp_header_shim(doctest doctest/doctest.h)
endif()

# The ldp command-line tool (host only; cross presets turn it off): CLI11, nlohmann-json and fmt
# from Debian (libcli11-dev, nlohmann-json3-dev, libfmt-dev).
if(LDP_BUILD_TOOLS AND NOT LDP_BARE_METAL)
  find_package(CLI11 REQUIRED)
  find_package(nlohmann_json 3 REQUIRED)
  find_package(fmt REQUIRED)
  find_package(Threads REQUIRED)
endif()
