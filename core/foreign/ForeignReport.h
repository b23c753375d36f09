#pragma once

#include "ForeignAuditResult.h"

#include <QByteArray>

namespace forkscope::foreign {

// The audit as JSON, as docs/audit.schema.json describes it (its "schema" field names that
// layout's version).
QByteArray auditJson(const ForeignAuditResult& r);
inline constexpr int kAuditJsonSchemaVersion = 1;

// The audit as JUnit XML for a CI: one testsuite, one testcase per finding class, each
// failing with the findings of its class (a build fails on any).
QByteArray auditJunit(const ForeignAuditResult& r);

} // namespace forkscope::foreign
