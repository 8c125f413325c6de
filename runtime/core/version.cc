#include <graphrt/version.h>

namespace graphrt {

const char* Version() { return GRAPHRT_VERSION_STRING; }

}  // namespace graphrt
