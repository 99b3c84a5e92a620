# snapshot_history misuse: versions that do not increase, a missing refwire_upgrade.
refwire_compile_fail_checks(snapshot_history_order.cpp
  REQUIRE "refwire: snapshot_history<T>::versions lists T's older versions, oldest first: each type's REFWIRE_TYPE_ATTRIBUTES .version must be below the next one's, and the last below T's"
  MAX_ERRORS 1)
refwire_compile_fail_checks(snapshot_history_no_upgrade.cpp
  REQUIRE "refwire: snapshot_history<T>: each listed type needs `Next refwire_upgrade.Old&&.` in its namespace .found by argument-dependent lookup., returning the next listed type .T after the last."
  MAX_ERRORS 1)
