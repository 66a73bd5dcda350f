C = {
 "batch-ppo": "3d09705977bae4e7c3eb20339a3b384d2a5531e4",
 "Elastica-RL-control": "1e708f889b81c572ba4d78d2df7213688e0e7ee3",
 "pokemonred_puffer": "e3bd1b13675450373cd7d6c734069dee82e6ffa2",
 "BulletArm": "dbe0a42d5c724d283f5d643856ad65b82265a556",
 "chainerrl-visualizer": "5c366f72cc5ab1f72bfd1e8d03805fa0044a2087",
 "iris": "24326aaaa283c527f42b89b44cfdecf2665a7a16",
 "easy-rl": "fc4ece6ee54966f7f293f5b071a61a47dda4cb30",
 "Turkish-Word2Vec": "63978f08b00f5be6aa1be88fbb35312f3260d771",
 "sumo-rl": "41e4c63eb4652c27ec18bc553048bb251f01cddf",
 "AgileRL": "549d85e488d478a734fe3fe4e3413720f60066c1",
 "Deep-Reinforcement-Learning-Algorithms-with-PyTorch": "4835bac8557fdacff1735eca004e35ea5a4b7443",
}
R = []
def r(repo, path, line, cls, ev, why, use="", cell="", modules="1", source="browse"):
    R.append([repo, C[repo], path, str(line), cls, ev, why, use, str(cell), str(modules), source])

# batch-ppo
r("batch-ppo","agents/scripts/train.py",118,"WSP201","issue:google-research/batch-ppo#3;repro:e_e4_02:script_lambda",
  "lambda constructor passed to utility.define_batch_env, which (flag env_processes default True, config num_agents 30) builds tools.wrappers.ExternalProcess(constructor) = multiprocessing.Process(args=(constructor, conn)): standard pickle fails on the lambda",
  "117","", 3, "issue-search")
r("batch-ppo","agents/scripts/visualize.py",111,"WSP201","repro:e_e4_02:script_lambda",
  "same lambda constructor to utility.define_batch_env -> ExternalProcess Process args (flag env_processes default True, num_agents default 1 still starts one process)",
  "110","", 3, "browse")
r("batch-ppo","agents/tools/wrappers.py",329,"WSP301","repro:e_e4_03:getattr_bound_method",
  "Process(target=self._worker) pickles the ExternalProcess itself; its class defines __getattr__ forwarding to self._conn, so unpickling in the spawned child recurses (RecursionError) even with a picklable constructor; no WSP code fits exactly (object sent to the worker that cannot be rebuilt there), least sure row",
  "348","", 1, "browse")
r("batch-ppo","agents/scripts/visualize.py",60,"safe","reading",
  "lambda episode trigger given to gym.wrappers.Monitor inside _create_environment, which runs in the worker (constructor() is called in ExternalProcess._worker) or in the parent (env_processes False): it is never pickled",
  "","", 1, "browse")
# Elastica
for path, line, n, src, ev in [
  ("Case1/policy_training_script.py",78,8,"issue-search","issue:GazzolaLab/Elastica-RL-control#1;repro:e_e4_01:unguarded"),
  ("Case2/policy_training_script.py",77,10,"browse","repro:e_e4_01:unguarded"),
  ("Case3/ReacherSoft_Case3_SI-ctrl_pts/policy_training_script.py",59,20,"browse","repro:e_e4_01:unguarded"),
  ("Case3/ReacherSoft_Case3_main-text/policy_training_script_OffPolicy.py",96,15,"browse","repro:e_e4_01:unguarded"),
  ("Case3/ReacherSoft_Case3_main-text/policy_training_script_OnPolicy.py",56,4,"browse","repro:e_e4_01:unguarded"),
  ("Case4/policy_training_script.py",83,6,"browse","repro:e_e4_01:unguarded")]:
    r("Elastica-RL-control", path, line, "WSP101", ev,
      "module-level multiprocessing.Pool(num_procs=%d) then pool.map(run_command_fun, ...) with no main guard: each spawned worker re-imports the script and creates a Pool again (bootstrapping RuntimeError)" % n,
      str(line+1), "", 1, src)
# pokemonred_puffer
r("pokemonred_puffer","pokemonred_puffer/train.py",80,"WSP202","issue:drubinstein/pokemonred_puffer#23;repro:e_e4_02:local_creator",
  "env_creator defined inside make_env_creator is returned by setup_agent/setup and given to pufferlib.vector.make(backend=Multiprocessing, the train command's default vectorization, num_workers 24 in config.yaml) and to pufferlib.vector.autotune (partial of it): standard-pickle Process args",
  "125;299;433","", 1, "issue-search")
r("pokemonred_puffer","pokemonred_puffer/sweep.py",290,"WSP202","repro:e_e4_02:local_fn_kwarg",
  "_fn defined inside launch_agent is passed as kwargs function=_fn to mp.Process(target=wandb.agent) and pickled with the standard pickler under spawn",
  "310","", 1, "browse")
r("pokemonred_puffer","pokemonred_puffer/cleanrl_puffer.py",51,"safe","reading",
  "evaluate -> rollout hands the local env_creator to pufferlib.vector.make without a backend (Serial, as the comment says): built in the parent, never pickled",
  "55","", 2, "browse")
# BulletArm
r("BulletArm","bulletarm/env_factory.py",98,"WSP202","issue:ColinKohler/BulletArm#15;repro:e_e4_02:local_thunk",
  "_thunk (local to getEnv inside createMultiprocessEnvs) goes to MultiRunner (bulletarm/runner.py), which passes it to multiprocessing.Process args; createEnvs(n>=1) from tutorials/block_stacking_demo.py (1), train_dummy_agent.py (2), baselines (num_processes default 5)",
  "101;103","", 3, "issue-search")
r("BulletArm","bulletarm/planners/planner_factory.py",15,"WSP201","repro:e_e4_02:factory_lambda",
  "getPlannerFn returns a lambda that createMultiprocessEnvs passes as planner_fn to MultiRunner's Process args (fails once _thunk is fixed)",
  "","", 3, "browse")
r("BulletArm","bulletarm_baselines/rs/data_generator.py",25,"safe","repro:e_e4_02:serial",
  "createEnvs(0, ...) takes the SingleRunner path: no process, the local thunk/planner lambda are not created or pickled",
  "","", 2, "browse")
# chainerrl-visualizer
r("chainerrl-visualizer","chainerrl_visualizer/launcher.py",78,"WSP204","issue:chainer/chainerrl-visualizer#12;repro:e_e4_04:local_render",
  "modify_gym_env_render sets the local render function as gym_env.render, then the env goes to Process(target=web_server/job_worker) args: standard pickle fails on the local function",
  "81;43;47","", 1, "issue-search")
r("chainerrl-visualizer","examples/a3c_breakout/main.py",68,"WSP101","issue:chainer/chainerrl-visualizer#12;repro:e_e4_04:unguarded",
  "module-level launch_visualizer(...) with no main guard starts two Processes (launcher.py); each spawned child re-imports main.py and calls it again (bootstrapping RuntimeError)",
  "","", 2, "issue-search")
r("chainerrl-visualizer","examples/categorical_dqn_seaquest/main.py",90,"WSP101","repro:e_e4_04:unguarded",
  "module-level launch_visualizer(...) with no main guard starts two Processes in launcher.py",
  "","", 2, "browse")
r("chainerrl-visualizer","examples/ppo_bipedalwalker_v2/main.py",86,"WSP101","repro:e_e4_04:unguarded",
  "module-level launch_visualizer(...) with no main guard starts two Processes in launcher.py",
  "","", 2, "browse")
r("chainerrl-visualizer","examples/a3c_breakout/main.py",59,"WSP103","repro:e_e4_04:unguarded",
  "agent.load('parameters') (model/optimizer weights) at import of the unguarded script: repeated by each spawned worker that re-imports main.py",
  "","", 1, "issue-search")
r("chainerrl-visualizer","examples/categorical_dqn_seaquest/main.py",67,"WSP103","repro:e_e4_04:unguarded",
  "agent.load('parameters') at import of the unguarded script, repeated in each spawned worker",
  "","", 1, "browse")
r("chainerrl-visualizer","examples/ppo_bipedalwalker_v2/main.py",77,"WSP103","repro:e_e4_04:unguarded",
  "agent.load('parameters') at import of the unguarded script, repeated in each spawned worker",
  "","", 1, "browse")
r("chainerrl-visualizer","examples/categorical_dqn_seaquest/main.py",49,"WSP204","repro:e_e4_04:lambda_explorer",
  "module-level lambda kept as random_action_func by the LinearDecayEpsilonGreedy explorer, kept by the CategoricalDQN agent sent to both Processes of launch_visualizer (attribute lookup <lambda> on __main__ fails)",
  "63;90","", 2, "browse")
r("chainerrl-visualizer","examples/a3c_breakout/main.py",29,"safe","repro:e_e4_04:guarded_phi",
  "phi is a module-level function kept by the A3C agent sent to the Processes: pickles by reference (the script fails for its missing guard, not for phi)",
  "57","", 2, "browse")
# iris
r("iris","src/trainer.py",66,"safe","issue:eloialonso/iris#4;repro:e_e4_02:partial_module",
  "the lambda of issue #4 is now partial(hydra instantiate, config=DictConfig): module-level function + picklable config, sent to MultiProcessEnv's Process args (test num_envs 8 in config/trainer.yaml)",
  "67","", 2, "issue-search")
r("iris","src/collector.py",33,"safe","reading",
  "should_stop lambda is used only in the parent's collect loop; never given to a worker",
  "","", 1, "browse")
# easy-rl
r("easy-rl","notebooks/A2C.ipynb",2,"safe","issue:datawhalechina/easy-rl#166;repro:e_e4_06:notebook_cloudpickle",
  "notebook-defined local _thunk goes to common/multiprocessing_env.py SubprocVecEnv (8 envs), which wraps each in a CloudpickleWrapper: cloudpickle pickles notebook functions by value, so it runs under spawn",
  "","5", 2, "notebook")
r("easy-rl","notebooks/A2C.ipynb",16,"safe","repro:e_e4_06:notebook_cloudpickle",
  "SubprocVecEnv(envs) at the top level of a notebook cell: a notebook is not re-imported by spawned children, so no main guard is needed",
  "","7", 2, "notebook")
# Turkish-Word2Vec
r("Turkish-Word2Vec","preprocess.py",35,"safe","issue:akoksal/Turkish-Word2Vec#1;repro:e_e4_01:guarded",
  "tokenize_tr (module-level since issue #1) given to gensim WikiCorpus, whose Pool pickles it by reference; the script is guarded",
  "12","", 1, "issue-search")
# sumo-rl
r("sumo-rl","experiments/ppo_4x4grid.py",37,"safe","issue:LucasAlegre/sumo-rl#19;reading",
  "lambda env creator given to ray register_env (4 rollout workers): ray serialises it with cloudpickle; the script is guarded",
  "","", 1, "issue-search")
r("sumo-rl","experiments/dqn_big-intersection.py",43,"safe","reading",
  "unguarded script, but DQN on one SumoEnvironment starts no Python worker processes (SUMO runs as a traci subprocess): nothing re-imports it",
  "","", 1, "browse")
# AgileRL
r("AgileRL","agilerl/utils/utils.py",260,"safe","issue:AgileRL/AgileRL#286;repro:e_e4_02:cloudpickle_local",
  "local make_env given to gymnasium AsyncVectorEnv (16 envs in the guarded demos), which sends env functions in a CloudpickleWrapper: fine under spawn",
  "272","", 2, "issue-search")
r("AgileRL","demos/multi_agent/demo_multi_agent.py",64,"safe","repro:e_e4_02:cloudpickle_lambda",
  "lambda env functions to AsyncPettingZooVecEnv (agilerl/vector/pz_async_vec_env.py wraps them in gymnasium's CloudpickleWrapper); guarded demo",
  "","", 2, "browse")
r("AgileRL","demos/single_agent/performance_flamegraph_cartpole.py",70,"safe","reading",
  "unguarded profiling script, but make_vect_envs(..., should_async_vector=False) builds a SyncVectorEnv: no worker processes",
  "","", 2, "browse")
# p-christ
r("Deep-Reinforcement-Learning-Algorithms-with-PyTorch","agents/actor_critic_agents/A3C.py",34,"safe","issue:p-christ/Deep-Reinforcement-Learning-Algorithms-with-PyTorch#44;repro:e_e4_05:agent_bound_method",
  "Process(target=self.update_shared_model) pickles the agent (logging.Logger with FileHandler, mp.Lock, shared net/optimizer, gym env); the issue's RLock was the Logger on Python 3.6, a Logger pickles by name since 3.7; results/*.py are guarded",
  "35;38","", 3, "issue-search")
r("Deep-Reinforcement-Learning-Algorithms-with-PyTorch","utilities/Parallel_Experience_Generator.py",32,"safe","repro:e_e4_05:pool_map_self",
  "torch.multiprocessing Pool.map(self, ...) with an instance of a module-level callable class holding env and policy: picklable (PPO agent, guarded results scripts)",
  "","", 2, "browse")

hdr = "repo\tcommit\tpath\tline\tclass\tevidence\twhy\tuse_lines\tcell\tmodules\tsource"
with open("/work/blind-e/e4.tsv","w") as f:
    f.write(hdr+"\n")
    for row in R:
        assert all("\t" not in x and "\n" not in x for x in row)
        f.write("\t".join(row)+"\n")
import collections
print(len(R), collections.Counter(x[4] for x in R))
print("cross-module hazards", sum(1 for x in R if x[4]!="safe" and int(x[9])>=2), "notebook rows", sum(1 for x in R if x[8]))
