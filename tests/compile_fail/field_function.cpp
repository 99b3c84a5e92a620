// Must NOT compile: a std::function field, written as JSON.
#include <functional>

#include <refwire/serialization.hpp>

struct job {
  std::string name;
  std::function<void()> on_done;
};
BOOST_DESCRIBE_STRUCT(job, (), (name, on_done))

int main() {
  std::string text = refwire::to_json(job{});
  return static_cast<int>(text.size());
}
