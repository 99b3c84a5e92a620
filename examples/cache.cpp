// A cache and a snapshot: a view model serialized with lz4 into an in-memory
// cache, and the application's state kept in a snapshot file across runs.
//
//   example_cache [state directory]    (default: the current directory)
//
// Run it twice with the same directory: the first run finds no snapshot,
// builds the state and saves it; the second loads what the first saved.
// scripts/run-examples.sh does exactly that in a temporary directory.
#include <refwire/serialization.hpp>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace app {

enum class trend : std::uint8_t { up, flat, down };
BOOST_DESCRIBE_ENUM(trend, up, flat, down)

/// One row of the dashboard.
struct quote {
  std::string symbol;
  double price = 0;
  std::int64_t volume = 0;
  trend direction = trend::flat;
  friend bool operator==(const quote&, const quote&) = default;
};
BOOST_DESCRIBE_STRUCT(quote, (), (symbol, price, volume, direction))

/// The view model a page renders: what goes into the cache.
struct dashboard {
  std::string title;
  std::uint32_t page = 0;
  std::vector<quote> rows;
  std::optional<std::string> banner;
  friend bool operator==(const dashboard&, const dashboard&) = default;
};
BOOST_DESCRIBE_STRUCT(dashboard, (), (title, page, rows, banner))

/// The application's state: what the snapshot keeps between runs.
struct state {
  std::uint32_t runs = 0;
  std::vector<std::string> watchlist;
  dashboard last_view;
};
BOOST_DESCRIBE_STRUCT(state, (), (runs, watchlist, last_view))

dashboard build_page(std::uint32_t page) {
  dashboard d;
  d.title = "Market overview";
  d.page = page;
  const char* symbols[] = {"ACME", "GLOBX", "INITECH", "UMBRL", "HOOLI"};
  for (std::uint32_t i = 0; i < 200; ++i) {
    d.rows.push_back({symbols[i % 5], 100.0 + (i * 7 % 50) / 4.0, 1000 * (i % 13), static_cast<trend>(i % 3)});
  }
  if (page == 1) d.banner = "Markets close early on Friday";
  return d;
}

const char* to_text(trend t) {
  switch (t) {
    case trend::up: return "up";
    case trend::flat: return "flat";
    case trend::down: return "down";
  }
  return "?";
}

}  // namespace app

int main(int argc, char** argv) {
  // ---- 1. an in-memory cache of rendered view models, compressed with lz4
  std::unordered_map<std::string, std::vector<std::byte>> cache;
  const refwire::encode_options packed{.compression = refwire::compression::lz4};
  for (std::uint32_t page = 1; page <= 3; ++page) {
    const app::dashboard view = app::build_page(page);
    const std::size_t plain = refwire::serialize(view).size();
    std::vector<std::byte>& slot = cache["dashboard:" + std::to_string(page)];
    refwire::serialize<refwire::binary>(view, slot, packed);
    std::printf("cache put dashboard:%u  %zu bytes binary, %zu bytes with lz4\n", page, plain, slot.size());
  }
  const auto& hit = cache.at("dashboard:1");
  const auto view = refwire::deserialize<app::dashboard>(hit, {.compression = refwire::compression::lz4});
  std::printf("cache get dashboard:1  \"%s\", %zu rows, banner: %s, first row %s %.2f %s\n", view.title.c_str(),
              view.rows.size(), view.banner ? view.banner->c_str() : "(none)", view.rows[0].symbol.c_str(),
              view.rows[0].price, app::to_text(view.rows[0].direction));
  if (!(view == app::build_page(1))) {
    std::fprintf(stderr, "the cached view differs from the original\n");
    return 1;
  }

  // ---- 2. the application's state, kept in a snapshot file across runs
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";
  const std::filesystem::path file = dir / "cache-example.rfw";
  app::state s;
  try {
    s = refwire::load_snapshot<app::state>(file);
    std::printf("snapshot loaded from the previous run: run %u, watchlist of %zu, last view page %u (%zu rows)\n",
                s.runs, s.watchlist.size(), s.last_view.page, s.last_view.rows.size());
  } catch (const refwire::snapshot_error& e) {
    if (e.kind() == refwire::snapshot_errc::io_error && e.sys_errno() == ENOENT) {
      std::printf("no snapshot yet: this is the first run, building the state\n");
    } else {
      // Damaged, or written by a build with another state type: start over, say why.
      std::printf("snapshot not usable (%s), starting over: %s\n", std::string(refwire::to_string(e.kind())).c_str(),
                  e.what());
    }
    s = app::state{};
    s.watchlist = {"ACME", "HOOLI"};
  }
  s.runs += 1;
  s.last_view = view;
  refwire::save_snapshot(file, s, packed);
  std::printf("snapshot saved: run %u, %ju bytes in %s\n", s.runs,
              static_cast<std::uintmax_t>(std::filesystem::file_size(file)), file.filename().c_str());
  return 0;
}
