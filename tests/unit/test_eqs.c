/* BlueConnect Eqs. 1-7 (models/eqs.c) against hand-computed values, to 1e-12
 * relative; ar_lg_steps; ar_model_add_stage clamping.
 */
#include <string.h>

#include "models/model.h"
#include "../t.h"

#define REL 1e-12

int main(void) {
    /* lg steps: ceil(log2 p); exact for powers of two */
    T_NEAR(ar_lg_steps(1) + 1.0, 1.0, 0, "lg(1)=0");
    T_NEAR(ar_lg_steps(2), 1.0, 0, "lg(2)");
    T_NEAR(ar_lg_steps(3), 2.0, 0, "lg(3)");
    T_NEAR(ar_lg_steps(4), 2.0, 0, "lg(4)");
    T_NEAR(ar_lg_steps(5), 3.0, 0, "lg(5)");
    T_NEAR(ar_lg_steps(8), 3.0, 0, "lg(8)");
    T_NEAR(ar_lg_steps(12), 4.0, 0, "lg(12)");
    T_NEAR(ar_lg_steps(1024), 10.0, 0, "lg(1024)");
    T_NEAR(ar_lg_steps(1025), 11.0, 0, "lg(1025)");

    /* Eq. 1: Tr(4, 1e8, 1e-6, 1e10) = 3*1e-6 + (3/4)*1e8/1e10 = 3e-6 + 7.5e-3 = 0.007503 */
    T_NEAR(ar_eq1_tr(4, 1e8, 1e-6, 1e10), 0.007503, REL, "Tr(4)");
    /* Tr(5, 1e8, 1e-6, 1e10) = 4e-6 + 0.8*0.01 = 0.008004 */
    T_NEAR(ar_eq1_tr(5, 1e8, 1e-6, 1e10), 0.008004, REL, "Tr(5)");
    /* Tr(12, 1.2e9, 2e-6, 2.5e10) = 11*2e-6 + (11/12)*1.2e9/2.5e10 = 2.2e-5 + 0.044 = 0.044022 */
    T_NEAR(ar_eq1_tr(12, 1.2e9, 2e-6, 2.5e10), 0.044022, REL, "Tr(12)");
    /* a group of one costs nothing */
    T_NEAR(ar_eq1_tr(1, 1e8, 1e-6, 1e10) + 1.0, 1.0, 0, "Tr(1)=0");

    /* Eq. 2: Tc(4, 1e8, 1e-6, 1e10) = lg4*1e-6 + 0.75*0.01 = 2e-6 + 0.0075 = 0.007502 */
    T_NEAR(ar_eq2_tc(4, 1e8, 1e-6, 1e10), 0.007502, REL, "Tc(4)");
    /* Tc(5, ...) = ceil(lg 5)=3: 3e-6 + 0.8*0.01 = 0.008003 */
    T_NEAR(ar_eq2_tc(5, 1e8, 1e-6, 1e10), 0.008003, REL, "Tc(5) ceil");
    /* Tc(3, 3e8, 1e-6, 1e10) = 2e-6 + (2/3)*0.03 = 2e-6 + 0.02 = 0.020002 */
    T_NEAR(ar_eq2_tc(3, 3e8, 1e-6, 1e10), 0.020002, REL, "Tc(3) ceil");
    /* Tc(1024, 1.024e9, 1e-5, 1e9) = 10e-5 + (1023/1024)*1.024 = 1e-4 + 1.023 = 1.0231 */
    T_NEAR(ar_eq2_tc(1024, 1.024e9, 1e-5, 1e9), 1.0231, REL, "Tc(1024)");

    /* Eq. 3: Tc for 2^q, Tr otherwise */
    T_NEAR(ar_eq3_trc(4, 1e8, 1e-6, 1e10), 0.007502, REL, "Trc(4) = Tc");
    T_NEAR(ar_eq3_trc(5, 1e8, 1e-6, 1e10), 0.008004, REL, "Trc(5) = Tr");

    /* Eq. 4: Treduce(4) = Tc + Tr = 0.007502 + 0.007503 = 0.015005 */
    T_NEAR(ar_eq4_treduce(4, 1e8, 1e-6, 1e10), 0.015005, REL, "Treduce(4)");
    /* Treduce(5) = 0.008003 + 0.008004 = 0.016007 */
    T_NEAR(ar_eq4_treduce(5, 1e8, 1e-6, 1e10), 0.016007, REL, "Treduce(5)");

    /* Eq. 6: 2 Tr(4, 1e8, 1e-6, 1e10) = 0.015006 */
    T_NEAR(ar_eq6_one_level(4, 1e8, 1e-6, 1e10), 0.015006, REL, "Eq6(4)");
    /* BlueConnect Fig. 1: 12 learners, N = 100 MB, a = 5 us, minW = 100 Gb/s = 12.5e9 B/s:
     * 2 * (11*5e-6 + (11/12)*1e8/12.5e9) = 2 * (5.5e-5 + 0.0073333...) = 2 * 0.00738833... = 0.0147766666... */
    T_NEAR(ar_eq6_one_level(12, 1e8, 5e-6, 12.5e9), 2.0 * (5.5e-5 + 11.0 / 12.0 * 0.008), REL, "Eq6(12)");
    T_NEAR(ar_eq6_one_level(12, 1e8, 5e-6, 12.5e9), 0.014776666666666667, REL, "Eq6(12) literal");

    /* Eq. 7 on BlueConnect's Fig. 1/2 numbers: p0 = 3 learners per node on NVLink w0 = 32 GB/s,
     * |P| = 12 -> 4 masters over minW = 100 Gb/s = 12.5e9 B/s, N = 100 MB, a = 5 us.
     *   Tc(3,N,a,w0) = ceil(lg 3)*5e-6 + (2/3)*1e8/32e9 = 1e-5 + 1/480
     *   Tr(3,N,a,w0) = 2*5e-6 + (2/3)*1e8/32e9         = 1e-5 + 1/480
     *   Tr/c(4,N,a,minW) = Tc(4) = 2*5e-6 + 0.75*1e8/12.5e9 = 1e-5 + 0.006 = 0.00601
     *   Eq. 7 = 2 Tc + 2 Tr + 2 Tr/c = 4*(1e-5 + 0.0020833...) + 0.01202 = 0.0083733... + 0.01202 = 0.0203933... */
    double eq7 = ar_eq7_two_level(3, 12, 1e8, 5e-6, 32e9, 12.5e9);
    T_NEAR(eq7, 4.0 * (1e-5 + 1.0 / 480.0) + 2.0 * 0.00601, REL, "Eq7 BlueConnect-12");
    T_NEAR(eq7, 0.020393333333333333, REL, "Eq7 BlueConnect-12 literal");
    /* 3 masters (p1 not 2^k -> ring): p0 = 4, |P| = 12, w0 = 32e9, minW = 12.5e9, N = 1e8, a = 5e-6
     *   Tc(4,N,a,w0) = 2*5e-6 + 0.75*1e8/32e9 = 1e-5 + 0.00234375 = 0.00235375
     *   Tr(4,N,a,w0) = 3*5e-6 + 0.00234375 = 0.00235875
     *   Tr(3,N,a,minW) = 2*5e-6 + (2/3)*0.008 = 1e-5 + 0.0053333... = 0.0053433...
     *   Eq. 7 = 2*0.00235375 + 2*0.00235875 + 2*0.0053433... = 0.0047075 + 0.0047175 + 0.0106866... = 0.0201116... */
    T_NEAR(ar_eq7_two_level(4, 12, 1e8, 5e-6, 32e9, 12.5e9),
           2 * 0.00235375 + 2 * 0.00235875 + 2 * (1e-5 + 2.0 / 3.0 * 0.008), REL, "Eq7 4x3");
    /* Eq. 7 with p0 = |P| degenerates to 2 Treduce(p0) (one master, no all-reduce) */
    T_NEAR(ar_eq7_two_level(4, 4, 1e8, 1e-6, 1e10, 1e10), 2.0 * 0.015005, REL, "Eq7 one machine");
    /* and with p0 = 1 to 2 Tr/c(|P|) */
    T_NEAR(ar_eq7_two_level(1, 4, 1e8, 1e-6, 5e9, 1e10), 2.0 * 0.007502, REL, "Eq7 p0=1");

    /* ar_model_add_stage: appends, adds time, clamps at AR_MODEL_MAX_STAGES */
    static ar_model_result r;
    memset(&r, 0, sizeof r);
    ar_model_add_stage(&r, "stage 0 reduce-scatter", "ring", 4, 1e8, 1e10, 1e-6, 0.25);
    T_CHECK(r.nstages == 1 && !strcmp(r.stages[0].label, "stage 0 reduce-scatter") &&
                !strcmp(r.stages[0].impl, "ring") && r.stages[0].p == 4,
            "stage recorded (%d)", r.nstages);
    T_NEAR(r.time_s, 0.25, REL, "time added");
    for (int i = 1; i < AR_MODEL_MAX_STAGES + 10; i++) ar_model_add_stage(&r, "x", "hd", 2, 1, 1, 0, 0.25);
    T_CHECK(r.nstages == AR_MODEL_MAX_STAGES, "clamped at %d stages (got %d)", AR_MODEL_MAX_STAGES, r.nstages);
    T_NEAR(r.time_s, 0.25 * (AR_MODEL_MAX_STAGES + 10), REL, "time of clamped stages still added");

    return t_done("test_eqs");
}
