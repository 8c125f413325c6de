// Runs the Keras fixtures written by tests/fixtures/gen_keras*.py: one folder per generator, its
// manifest.json listing models ("cases": model file, optional --keras-config JSON, input .npy
// files, Keras's outputs, rtol/atol, and for stateful models the next call's) and what TensorFlow
// made of graphrt's conversions ("convert_checked_by_tf").
#ifndef GRAPHRT_TESTS_KERAS_FIXTURE_UTIL_H_
#define GRAPHRT_TESTS_KERAS_FIXTURE_UTIL_H_

#include <string>

#include <nlohmann/json.hpp>

namespace graphrt {
namespace testing {

// The folder's manifest.json; a null Json when it cannot be read.
nlohmann::json KerasManifest(const std::string& dir);

// A manifest model path: relative to `dir`, or "shared:<path>" under the shared data folder.
std::string KerasModelPath(const std::string& dir, const std::string& model);

// Loads one case's model and runs it on the case's inputs (and, for a stateful model, the next
// call); "" when every output matches Keras's within the case's tolerance, else what differs.
std::string RunKerasCase(const std::string& dir, const nlohmann::json& c);

// Every case of manifest[key] matches Keras; exactly `expected` cases ran.
void ExpectKerasCasesMatch(const std::string& dir, int expected, const std::string& key = "cases");

// Every case converted by `graphrt convert` ran in TensorFlow with Keras's outputs (recorded by
// the generator); and graphrt converts each case again now, loads the SavedModel and matches
// Keras's outputs through its serving signature. Exactly `expected` cases each way.
void ExpectKerasConversionsMatch(const std::string& dir, int expected);

// Every model of manifest["errors"] ({"model", optional "config", "must_name": [...]}) is refused
// with a message naming each string of its must_name; exactly `expected` of them.
void ExpectKerasErrorsNamed(const std::string& dir, int expected);

}  // namespace testing
}  // namespace graphrt

#endif  // GRAPHRT_TESTS_KERAS_FIXTURE_UTIL_H_
