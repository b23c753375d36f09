#pragma once

#include "EventRegistry.h"

#include <QString>

namespace forkscope::abi {

// An event as a person writes it on a command line, the way Solidity declares it:
// "PairCreated(address indexed token0, address indexed token1, address pair, uint256)".
// Each input is a type (elementary or array: "uint256", "address[]", "bytes32[2]"), then
// `indexed` if it is, then its name if it has one. Tuples have no such spelling here: an
// event with a struct input is named by its name in an --abi file instead. Throws AbiError
// saying what in the text is wrong (its `where`: the flag or key it came from).
AbiEvent parseEventDeclaration(const QString& text, const QString& where);

} // namespace forkscope::abi
