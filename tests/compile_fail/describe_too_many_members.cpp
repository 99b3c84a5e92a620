// Must NOT compile: BOOST_DESCRIBE_STRUCT takes at most 52 members. The
// macro's own error is the only one: refwire adds none after it.
#include <refwire/serialization.hpp>

struct wide {
  int m0 = 0;
  int m1 = 0;
  int m2 = 0;
  int m3 = 0;
  int m4 = 0;
  int m5 = 0;
  int m6 = 0;
  int m7 = 0;
  int m8 = 0;
  int m9 = 0;
  int m10 = 0;
  int m11 = 0;
  int m12 = 0;
  int m13 = 0;
  int m14 = 0;
  int m15 = 0;
  int m16 = 0;
  int m17 = 0;
  int m18 = 0;
  int m19 = 0;
  int m20 = 0;
  int m21 = 0;
  int m22 = 0;
  int m23 = 0;
  int m24 = 0;
  int m25 = 0;
  int m26 = 0;
  int m27 = 0;
  int m28 = 0;
  int m29 = 0;
  int m30 = 0;
  int m31 = 0;
  int m32 = 0;
  int m33 = 0;
  int m34 = 0;
  int m35 = 0;
  int m36 = 0;
  int m37 = 0;
  int m38 = 0;
  int m39 = 0;
  int m40 = 0;
  int m41 = 0;
  int m42 = 0;
  int m43 = 0;
  int m44 = 0;
  int m45 = 0;
  int m46 = 0;
  int m47 = 0;
  int m48 = 0;
  int m49 = 0;
  int m50 = 0;
  int m51 = 0;
  int m52 = 0;
};
// clang-format off
BOOST_DESCRIBE_STRUCT(wide, (), (m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24, m25, m26, m27, m28, m29, m30, m31, m32, m33, m34, m35, m36, m37, m38, m39, m40, m41, m42, m43, m44, m45, m46, m47, m48, m49, m50, m51, m52))
// clang-format on

int main() {
  std::string text = refwire::to_json(wide{});
  auto bytes = refwire::serialize(wide{});
  return static_cast<int>(text.size() + bytes.size());
}
