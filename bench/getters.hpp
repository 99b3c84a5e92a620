#pragma once
// bench/getters.hpp: the data sets as functions, for add_codec.

#include "datasets.hpp"

namespace refwire_bench::get {

inline const small& small_value() { return data().small_value; }
inline const record& record_value() { return data().record_value; }
inline const doubles& bulk_doubles() { return data().bulk_doubles; }
inline const strings& bulk_strings() { return data().bulk_strings; }
inline const records& many() { return data().many; }

}  // namespace refwire_bench::get
