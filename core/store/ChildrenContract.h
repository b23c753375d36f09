#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Schema 9: the children of a source's factories (wire/FactorySource.h). `child_store` holds
// each child once, with where its factory's creation event is on the chain (block, hash, log
// index, transaction), as BLOBs like the rest of contract v4; `factory_children` serves them
// as lowercase 0x hex. A child's rows start at its creation block, so a rollback below that
// block removes the child with all of its rows, and its diff lists it (kind child_removed).
Migration childrenMigration();

// Schema 9's factory_children view.
QList<SurfaceObject> childrenSurface();

} // namespace forkscope::store
