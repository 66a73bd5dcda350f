class Config:
    lmdb_f = "/tmp/q_q1_04_lmdb"
    list_file = "/tmp/q_q1_04_list.txt"
    train_dataset = [["k%d" % i, i % 2] for i in range(6)]
    num_workers = 4


config = Config()
