/* NCCL's tree all-reduce runs its up (reduce) and down (broadcast) streams apart (runTreeSplit in
 * src/device/all_reduce.h, NCCL 2.30: below the root a rank's reduce and broadcast run on their own
 * threads), so a rank's broadcast of chunk j does not wait for its reduce of a later chunk. Under
 * dataflow a tree all-reduce op with an NCCL protocol gives each member but the root a second clock
 * for its transfers down the tree (ar_lower_split). By hand, the walk and every engine and mode
 * equal the hand-derived time to 1e-9; lockstep rounds are unchanged.
 *
 * The tree: a chain R <- A <- B <- C (ranks 0, 1, 2, 3; R, A on machine 0, B, C on machine 1), a
 * direct link between neighbours (10 GB/s, 1 us each), so that no two transfers share a directed
 * link at once (up uses C->B, B->A, A->R; down the reverse; a link's chunks follow each other). Depth
 * 3, c = 3 chunks, 2 x 3 + 3 - 1 = 8 rounds: up, the member at depth d sends chunk j in round 3 - d +
 * j; down, its parent sends it chunk j in round d + 2 + j.
 * LL128 (NCCL 2.30's TREE constants, tuning.cc: NVLink step 1.25 us, network step 8.5 us, base 14
 * us, bandwidth factor across nodes 120/128): the path's sum 2 x (2 x 1.25 + 8.5) = 22 us over 8
 * rounds, 2.75 us a transfer, above the 1 us route: N = 450 000 B, a chunk 150 000 B, 160 000 B on
 * the wire, b = 16 us out of the sender, h = b + 2.75 = 18.75 us until the receiver has it.
 *   Lockstep: 8 h + 14 = 164 us.
 *   Dataflow, one clock per member (a round r + 1 after its sends of r are out and its receives of
 *   r arrived): the up chunks leave C at 0, 16, 32 and reach R at 56.25, 72.25, 93.75 (A sends
 *   chunk 2 up only at 75, in the round where the down chunk 0 reaches it, R having sent it at
 *   56.25); R sends them down at 56.25, 72.25, 93.75; A's rounds end at 75, 91, 112.5 and it sends
 *   down at 75, 91, 112.5; B at 93.75, 109.75, 131.25; C has chunk 2 at 131.25 + h = 150: 164 us.
 *   Streams apart: A's up clock sends chunk 2 at 69.5 (its up round 3 ends when chunk 2 from B
 *   arrives, 50.75 + h), R receives it at 88.25 and sends it down at 88.25; A's down clock: chunk 0
 *   at 75, chunk 1 at 72.25 + h = 91, chunk 2 at 88.25 + h = 107, so it sends down at 75, 91, 107;
 *   B's down clock sends at 93.75, 109.75, 125.75; C has chunk 2 at 125.75 + h = 144.5: 158.5 us.
 * Without a protocol the op is not split (one clock per member, as the papers' trees). */
#include "core/lower.h"
#include "sim_util.h"

static const char *const plat =
    "{\"name\": \"chain4\", \"kind\": \"graph\", \"nodes\": ["
    "{\"name\": \"r\", \"type\": \"gpu\", \"machine\": 0}, {\"name\": \"a\", \"type\": \"gpu\", \"machine\": 0},"
    "{\"name\": \"b\", \"type\": \"gpu\", \"machine\": 1}, {\"name\": \"c\", \"type\": \"gpu\", \"machine\": 1}],"
    "\"links\": [{\"a\": \"r\", \"b\": \"a\", \"bw\": \"10GBps\", \"lat\": \"1us\"},"
    "{\"a\": \"a\", \"b\": \"b\", \"bw\": \"10GBps\", \"lat\": \"1us\"},"
    "{\"a\": \"b\", \"b\": \"c\", \"bw\": \"10GBps\", \"lat\": \"1us\"}]}";

static void check(const char *what, ar_proto proto, double hand_round, double hand_df) {
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "%s: the chain platform loads", what);
    if (!p) return;
    T_CHECK(p->nmachines == 2 && p->machine_of_rank && p->machine_of_rank[1] == 0 && p->machine_of_rank[2] == 1,
            "%s: R, A on machine 0, B, C on machine 1", what);
    ar_schedule *s = ar_schedule_new("tree-chain", 4, 450000 / 4, 4);
    const int members[4] = {0, 1, 2, 3}, parent[4] = {-1, 0, 1, 2};
    ar_op *op = s && ar_sched_phase(s, "tree") >= 0
                    ? ar_sched_op(s, AR_OP_ALL_REDUCE, AR_IMPL_TREE, members, 4, 0, 450000 / 4)
                    : NULL;
    T_CHECK(op != NULL && ar_op_set_parent(op, parent) == AR_OK, "%s: the tree op is built", what);
    if (op) {
        op->chunks = 3;
        op->proto = proto;
        T_CHECK(ar_lower_nrounds(op) == 8, "%s: 2 x depth 3 + 3 chunks - 1 = 8 rounds (got %d)", what,
                ar_lower_nrounds(op));
        T_CHECK(ar_lower_split(op) == (proto != AR_PROTO_NONE), "%s: split iff a protocol", what);
        sim_modes_vs_hand(what, p, s, hand_df, hand_round, 1);
    }
    ar_schedule_free(s);
    ar_platform_free(p);
}

int main(void) {
    check("LL128 tree, streams apart", AR_PROTO_LL128, 164e-6, 158.5e-6);
    /* no protocol: every transfer 1 + 15 us (150 000 B at 10 GB/s): lockstep 8 x 16 = 128 us; dataflow
     * two-sided, one clock: a member's round waits for both ends, the same 128 us */
    check("no protocol, one clock", AR_PROTO_NONE, 128e-6, 128e-6);
    return t_done("sim_tree_split");
}
