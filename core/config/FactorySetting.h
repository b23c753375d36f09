#pragma once

#include "wire/FactorySource.h"

#include <QString>

namespace forkscope::config {

// One line of the settings' factories: the factory's address, its creation event's full
// signature, and the argument that holds each child's address, separated by spaces:
//   0x5c69...aa6f PairCreated(address indexed token0, address indexed token1, address pair,
//   uint256) pair
// (the address and the argument have no spaces, so whatever lies between them is the event).
// Throws wire::FactorySourceError naming what is wrong, in the settings' words.
wire::FactorySource factoryFromSetting(const QString& line);

} // namespace forkscope::config
