// HolderDeltas: a batch's transfer sides summed per holder (or several batches' sums added
// together) and handed over in balance_store's key order (SQLite compares BLOBs with memcmp:
// unsigned bytes, contract first). BalanceBook walks the table in that order, so a key out of place
// would be taken as absent.
#include "indexer/HolderDeltas.h"

#include <QMap>
#include <QRandomGenerator>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::indexer;

namespace {

struct Side
{
    QByteArray contract; // 20 bytes
    QByteArray holder;   // 20 bytes
    qint64 amount;
};

HolderKey keyOf(const Side& s)
{
    return {chain::Address::fromBytes(s.contract, "contract"),
            chain::Address::fromBytes(s.holder, "holder")};
}

// 20 bytes: `fill` everywhere, `last` at `at`.
QByteArray bytes(char fill, int at = 19, char last = 0)
{
    QByteArray b(20, fill);
    b[at] = last;
    return b;
}

} // namespace

Q_DECLARE_METATYPE(QList<Side>)

class TestHolderDeltas : public QObject
{
    Q_OBJECT
private slots:
    void mergesInKeyOrder_data();
    void mergesInKeyOrder();
    void addsAfterAMerge();
};

void TestHolderDeltas::mergesInKeyOrder_data()
{
    QTest::addColumn<QList<Side>>("sides");
    const QByteArray c1 = bytes('\x01'), c2 = bytes('\x02');
    QTest::newRow("one side") << QList<Side>{{c1, bytes('\x05'), 7}};
    QTest::newRow("one holder's sides are summed, sent and received")
        << QList<Side>{{c1, bytes('\x05'), 5}, {c1, bytes('\x05'), -2}, {c1, bytes('\x05'), 7}};
    QTest::newRow("a self-transfer: two sides, nothing moved")
        << QList<Side>{{c1, bytes('\x05'), -9}, {c1, bytes('\x05'), 9}};
    // 0x80 and above sort after 0x7f as unsigned bytes; a signed comparison reverses them.
    QTest::newRow("bytes compare unsigned") << QList<Side>{{c1, bytes('\x00', 0, '\x80'), 1},
                                                           {c1, bytes('\x00', 0, '\x7f'), 2},
                                                           {c1, bytes('\x00', 0, '\xff'), 3},
                                                           {c1, bytes('\x00', 0, '\x01'), 4}};
    QTest::newRow("the contract decides before the holder")
        << QList<Side>{{c2, bytes('\x00'), 1}, {c1, bytes('\xff'), 2}, {c2, bytes('\x01'), 3}};
    // Each byte of a key on its own: the 40 bytes are compared word by word.
    QList<Side> eachByte;
    for (int at = 0; at < 20; ++at) {
        eachByte.append({c1, bytes('\x10', at, '\x11'), at});
        eachByte.append({bytes('\x10', at, '\x11'), c1, -at});
        eachByte.append({bytes('\x10', at, '\x0f'), c1, at});
    }
    QTest::newRow("a difference in any one byte") << eachByte;
    QRandomGenerator random(15);
    QList<Side> many;
    QList<QByteArray> holders;
    for (int h = 0; h < 60; ++h) {
        QByteArray b(20, Qt::Uninitialized);
        for (char& ch : b)
            ch = char(random.bounded(4) == 0 ? random.bounded(256) : 0x42); // shared prefixes
        holders.append(b);
    }
    for (int n = 0; n < 700; ++n)
        many.append({random.bounded(2) ? c1 : c2, holders[random.bounded(holders.size())],
                     qint64(random.bounded(2000)) - 1000});
    QTest::newRow("700 sides of 120 holders, random") << many;
    QTest::newRow("nothing") << QList<Side>{};
}

void TestHolderDeltas::mergesInKeyOrder()
{
    QFETCH(QList<Side>, sides);
    // The model: QByteArray's order is memcmp's.
    struct Want
    {
        qint64 amount = 0, sides = 0;
        std::uint64_t lastBlock = 0;
    };
    QMap<QByteArray, Want> want; // contract + holder
    HolderDeltas deltas;
    std::uint64_t block = 0;
    for (const Side& s : sides) {
        block = (block * 7 + 3) % 101; // blocks out of order, as no batch has them
        deltas.addSide(keyOf(s), SignedAmount(s.amount), block);
        Want& w = want[s.contract + s.holder];
        w.amount += s.amount;
        ++w.sides;
        w.lastBlock = std::max(w.lastBlock, block);
    }
    deltas.merge();
    QCOMPARE(deltas.size(), std::size_t(want.size()));
    QCOMPARE(deltas.isEmpty(), want.isEmpty());
    std::size_t i = 0;
    for (auto it = want.cbegin(); it != want.cend(); ++it, ++i) {
        const HolderKey& key = deltas.key(i);
        QCOMPARE(key.contract.toByteArray() + key.holder.toByteArray(), it.key());
        QCOMPARE(deltas.delta(i).amount, SignedAmount(it.value().amount));
        QCOMPARE(deltas.delta(i).sides, it.value().sides);
        QCOMPARE(deltas.delta(i).lastBlock, it.value().lastBlock);
    }

    // The same sides in several parts, each merged (some compacted), then summed: the same.
    for (int parts : {1, 2, 3, 5}) {
        std::vector<HolderDeltas> each(static_cast<std::size_t>(parts));
        block = 0;
        for (qsizetype n = 0; n < sides.size(); ++n) {
            block = (block * 7 + 3) % 101;
            each[std::size_t(n % parts)].addSide(keyOf(sides[n]), SignedAmount(sides[n].amount),
                                                 block);
        }
        std::vector<const HolderDeltas*> merged;
        for (std::size_t k = 0; k < each.size(); ++k) {
            if (k % 2)
                each[k].compact();
            else
                each[k].merge();
            merged.push_back(&each[k]);
        }
        const HolderDeltas sum = HolderDeltas::sumOfMerged(merged);
        QCOMPARE(sum.size(), deltas.size());
        for (std::size_t k = 0; k < sum.size(); ++k) {
            QCOMPARE(sum.key(k), deltas.key(k));
            QCOMPARE(sum.delta(k).amount, deltas.delta(k).amount);
            QCOMPARE(sum.delta(k).sides, deltas.delta(k).sides);
            QCOMPARE(sum.delta(k).lastBlock, deltas.delta(k).lastBlock);
        }
    }
}

void TestHolderDeltas::addsAfterAMerge()
{
    const HolderKey a{chain::Address::fromBytes(bytes('\x01'), "c"),
                      chain::Address::fromBytes(bytes('\x09'), "h")};
    const HolderKey b{a.contract, chain::Address::fromBytes(bytes('\x03'), "h")};
    HolderDeltas deltas{{a, {SignedAmount(10), 2, 8}}};
    QCOMPARE(deltas.size(), std::size_t(1)); // built from a list: merged already
    deltas.addSide(b, SignedAmount(4), 9);
    deltas.add(a, {SignedAmount(-3), 1, 5});
    deltas.merge();
    QCOMPARE(deltas.size(), std::size_t(2));
    QCOMPARE(deltas.key(0), b);
    QCOMPARE(deltas.delta(0).amount, SignedAmount(4));
    QCOMPARE(deltas.key(1), a);
    QCOMPARE(deltas.delta(1).amount, SignedAmount(7));
    QCOMPARE(deltas.delta(1).sides, qint64(3));
    QCOMPARE(deltas.delta(1).lastBlock, std::uint64_t(8));

    // A holder with several sides, merged twice: each side counts once.
    HolderDeltas twice;
    for (int n = 1; n <= 4; ++n)
        twice.addSide(a, SignedAmount(n), std::uint64_t(n));
    twice.merge();
    twice.addSide(b, SignedAmount(1), 1);
    twice.merge();
    QCOMPARE(twice.size(), std::size_t(2));
    QCOMPARE(twice.delta(1).amount, SignedAmount(10));
    QCOMPARE(twice.delta(1).sides, qint64(4));
    QCOMPARE(twice.delta(1).lastBlock, std::uint64_t(4));
}

QTEST_GUILESS_MAIN(TestHolderDeltas)
#include "tst_holderdeltas.moc"
