#include "runtime/core/types.h"

#include <gtest/gtest.h>

namespace graphrt {
namespace {

DataType Enum(int value) { return static_cast<DataType>(value); }

TEST(TypesTest, ReferenceTypesAreTheBaseTypesPlusOneHundred) {
  EXPECT_TRUE(IsRefType(Enum(101)));
  EXPECT_EQ(BaseType(Enum(101)), ::tensorflow::DT_FLOAT);
  EXPECT_EQ(MakeRefType(::tensorflow::DT_FLOAT), Enum(101));
  EXPECT_EQ(MakeRefType(Enum(101)), Enum(101));
  EXPECT_EQ(DataTypeString(Enum(101)), "float_ref");
  EXPECT_EQ(DataTypeString(Enum(109)), "int64_ref");
  EXPECT_EQ(DataTypeSize(Enum(103)), 4);
}

TEST(TypesTest, OutOfRangeEnumsAreUnknownNotReferences) {
  // A NodeDef or checkpoint entry may hold any int32 here: 2e9 once recursed until the stack
  // overflowed.
  for (int value : {2000000000, 2147483647, 201, 200, -1, -2147483647 - 1, 99}) {
    SCOPED_TRACE(value);
    EXPECT_FALSE(IsRefType(Enum(value)));
    EXPECT_EQ(BaseType(Enum(value)), Enum(value));
    EXPECT_EQ(DataTypeString(Enum(value)), "unknown dtype enum (" + std::to_string(value) + ")");
    EXPECT_EQ(DataTypeSize(Enum(value)), 0);
  }
  // References to no type.
  EXPECT_EQ(DataTypeString(Enum(150)), "unknown dtype enum (150)");
  EXPECT_EQ(DataTypeString(Enum(199)), "unknown dtype enum (199)");
  EXPECT_EQ(MakeRefType(Enum(2000000000)), Enum(2000000000));
  EXPECT_EQ(MakeRefType(::tensorflow::DT_INVALID), ::tensorflow::DT_INVALID);
}

}  // namespace
}  // namespace graphrt
