// SPDX-License-Identifier: MIT
pragma solidity ^0.8.26;

// Emits events covering every ABI type family, with fixed values, so the decoder is tested
// against what the real Solidity encoder produced (tests/tst_abi.cpp knows the values).
contract AbiZoo {
    struct Item {
        uint64 id;
        string name;
        int32[] deltas;
    }
    struct Pair {
        address a;
        bytes b;
    }

    event Scalars(address indexed who, bool flag, uint8 small, uint256 big, int8 neg8,
                  int256 neg, bytes4 tag, bytes32 word);
    event Dynamic(string indexed label, bytes blob, string text, uint256[] nums, address[2] pair);
    event Nested(Item item, Pair[] list, bool[3][] grid);
    event IndexedStatic(uint16 indexed a, int64 indexed b, bytes8 indexed c);
    event Anon(uint256 x) anonymous;

    function emitAll() external {
        emit Scalars(address(0x1234), true, 255, type(uint256).max, -128, type(int256).min,
                     0xdeadbeef, keccak256("forkscope"));
        uint256[] memory nums = new uint256[](3);
        nums[0] = 1;
        nums[1] = 2 ** 200;
        nums[2] = 0;
        emit Dynamic("label", hex"00ff10", unicode"héllo wörld", nums,
                     [address(0xA), address(0xB)]);
        int32[] memory deltas = new int32[](2);
        deltas[0] = -1;
        deltas[1] = 2147483647;
        Pair[] memory list = new Pair[](2);
        list[0] = Pair(address(0xC), hex"");
        list[1] = Pair(address(0xD), hex"0102030405060708091011121314151617181920212223242526272829303132333435");
        bool[3][] memory grid = new bool[3][](1);
        grid[0] = [true, false, true];
        emit Nested(Item(7, "seven", deltas), list, grid);
        emit IndexedStatic(65535, -42, 0x0102030405060708);
        emit Anon(99);
    }
}
