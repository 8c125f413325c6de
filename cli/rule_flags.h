// The migration rules as flags of `graphrt migrate` and `migrate-graph` (../shared/CLI.md),
// registered and read from the one table of rules (migrate::RuleDescriptors), plus --rules FILE.
#ifndef GRAPHRT_CLI_RULE_FLAGS_H_
#define GRAPHRT_CLI_RULE_FLAGS_H_

#include <boost/program_options.hpp>

#include "migrate/migration_rules.h"
#include "runtime/core/status.h"

namespace graphrt {
namespace cli {

// --rules FILE and a flag per rule; the graph-only rules when `graph` is set.
void AddRuleFlags(boost::program_options::options_description* desc, bool graph);
// The --rules file first, then the flags, which add to it (a switch can only turn a rule on).
Status ReadRuleFlags(const boost::program_options::variables_map& vm, bool graph,
                     migrate::MigrationRules* rules);

}  // namespace cli
}  // namespace graphrt

#endif  // GRAPHRT_CLI_RULE_FLAGS_H_
