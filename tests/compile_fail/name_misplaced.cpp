// Must NOT compile: REFWIRE_NAME outside the namespace of its type would be ignored.
#include <refwire/serialization.hpp>

namespace app {
enum class color { red, green };
BOOST_DESCRIBE_ENUM(color, red, green)
}  // namespace app

REFWIRE_NAME(app::color, "Color")

int main() { return static_cast<int>(refwire::proto_schema<app::color>().size()); }
