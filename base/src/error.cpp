#include "vkattn/core/error.hpp"

namespace vkattn {

InvalidArgument::InvalidArgument(const std::string& argument, const std::string& problem)
    : Error("invalid argument '" + argument + "': " + problem), m_argument(argument), m_problem(problem) {}

}  // namespace vkattn
