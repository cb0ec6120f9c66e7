# Included by CMake right after llama.cpp's own project() call when scripts/setup.sh builds
# llama-cpp-python (CMAKE_PROJECT_llama.cpp_INCLUDE in its CMAKE_ARGS).
#
# llama-cpp-python 0.3.36 forces LLAMA_BUILD_COMMON=ON (a CACHE FORCE in its CMakeLists.txt, so
# -DLLAMA_BUILD_COMMON=OFF on the command line is overridden). The Python package never loads
# that library: llama_cpp loads libllama and libggml*, and only the multimodal chat handlers load
# libmtmd, which LLAVA_BUILD=OFF leaves out too. libllama-common (argument parsing, chat
# templates, downloads through cpp-httplib) was 42% of the build's compile time on 2 cores.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
