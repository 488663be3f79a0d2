# The PyTorch anchor of rl.update_s.s.32x448 (bench/rlUpdate.ts runs it when torch imports):
# a same-shape model to the lab's preset s (vocab 601, C 64, 4 layers, 4 heads, MLP 320, ALiBi, tied head)
# on one CPU thread, one RL update of 32 rows x 448 tokens in 2 mini-batches of 16: the frozen reference's
# forward (no grad), the policy's forward and backward with the clipped surrogate and k3 KL at the policy
# tokens, one AdamW step per mini-batch. Prints the seconds of the update (after one untimed warm-up).
import math
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
V, C, L, H, FF, T, ROWS, MINI = 601, 64, 4, 4, 320, 448, 32, 2


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(C), torch.nn.LayerNorm(C)
        self.qkv, self.proj = torch.nn.Linear(C, 3 * C), torch.nn.Linear(C, C)
        self.fc, self.out = torch.nn.Linear(C, FF), torch.nn.Linear(FF, C)

    def forward(self, x, bias):
        B = x.shape[0]
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, H, C // H).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(C // H) + bias, -1) @ v  # [B, H, T, hd]
        x = x + self.proj(a.transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate='tanh'))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = torch.nn.Embedding(V, C)
        self.blocks = torch.nn.ModuleList(Block() for _ in range(L))
        self.lnf = torch.nn.LayerNorm(C)
        slopes = torch.tensor([2 ** (-8 * (h + 1) / H) for h in range(H)]).view(H, 1, 1)
        i = torch.arange(T)
        dist = (i.view(T, 1) - i.view(1, T)).clamp(min=0).float()
        self.register_buffer('bias', torch.where(i.view(T, 1) >= i.view(1, T), -slopes * dist, torch.tensor(-1e9)))

    def logprobs(self, tokens, mask):
        x = self.wte(tokens)
        for b in self.blocks:
            x = b(x, self.bias)
        h = self.lnf(x)[:, :-1][mask]  # the policy tokens' hidden rows [P, C]
        logp = torch.log_softmax(h @ self.wte.weight.T, -1)
        return logp.gather(1, tokens[:, 1:][mask].unsqueeze(1)).squeeze(1)


policy, reference = Model(), Model()
reference.requires_grad_(False)
opt = torch.optim.AdamW(policy.parameters(), lr=1e-4, betas=(0.9, 0.999), weight_decay=0.01)
tokens = torch.randint(1, V, (ROWS, T))
mask = torch.zeros(ROWS, T - 1, dtype=torch.bool)
mask[:, int(0.4 * T):] = True
old = torch.full((ROWS, T - 1), -1.0)
adv = torch.tensor([1.0, -1.0, 0.5, -0.5]).repeat(ROWS // 4).view(ROWS, 1).expand(ROWS, T - 1)


def update():
    for m in range(MINI):
        rows = slice(m * ROWS // MINI, (m + 1) * ROWS // MINI)
        tok, msk = tokens[rows], mask[rows]
        with torch.no_grad():
            ref = reference.logprobs(tok, msk)
        logp = policy.logprobs(tok, msk)
        a = adv[rows][msk]
        ratio = torch.exp((logp - old[rows][msk]).clamp(-20, 20))
        pg = torch.maximum(-a * ratio, -a * ratio.clamp(0.8, 1.2))
        d = (ref - logp).clamp(-20, 20)
        kl = (torch.exp(d) - d - 1).clamp(-10, 10)
        loss = (pg + 0.001 * kl).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()


update()  # warm-up
t0 = time.process_time()
update()
print(time.process_time() - t0)
